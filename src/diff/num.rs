//! Exact decimal numbers.
//!
//! serde_json is built with `arbitrary_precision`, so `1e3`, `1000` and `1000.0` arrive as three
//! different spellings. They are compared here by exact decimal value: the mantissa and exponent are
//! parsed by hand, never through `f64`.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// An exact decimal: `(-1)^neg * digits * 10^exp`, `digits` without leading or trailing zeros.
/// Zero is `digits == ""`, `neg == false`, `exp == 0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dec {
    neg: bool,
    digits: String,
    exp: i64,
}

impl Dec {
    pub fn zero() -> Dec {
        Dec { neg: false, digits: String::new(), exp: 0 }
    }

    /// Parse a JSON number spelling. `None` for anything that is not one.
    pub fn parse(s: &str) -> Option<Dec> {
        let s = s.trim();
        let (neg, rest) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (mant, exp_part) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let mut exp: i64 = match exp_part {
            Some(e) => {
                let e = e.strip_prefix('+').unwrap_or(e);
                if e.is_empty() || e.len() > 18 {
                    return None;
                }
                e.parse::<i64>().ok()?
            }
            None => 0,
        };
        let (int_part, frac_part) = match mant.split_once('.') {
            Some((i, f)) => (i, f),
            None => (mant, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        if !int_part.bytes().all(|b| b.is_ascii_digit()) || !frac_part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits = String::with_capacity(int_part.len() + frac_part.len());
        digits.push_str(int_part);
        digits.push_str(frac_part);
        exp = exp.checked_sub(frac_part.len() as i64)?;
        let trimmed_lead = digits.trim_start_matches('0');
        let trailing = trimmed_lead.len() - trimmed_lead.trim_end_matches('0').len();
        let core = trimmed_lead.trim_end_matches('0').to_string();
        if core.is_empty() {
            return Some(Dec::zero());
        }
        exp = exp.checked_add(trailing as i64)?;
        Some(Dec { neg, digits: core, exp })
    }

    pub fn from_number(n: &Number) -> Option<Dec> {
        Dec::parse(n.as_str())
    }

    pub fn from_value(v: &Value) -> Option<Dec> {
        match v {
            Value::Number(n) => Dec::from_number(n),
            _ => None,
        }
    }

    pub fn from_i128(i: i128) -> Dec {
        Dec::parse(&i.to_string()).unwrap_or_else(Dec::zero)
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    pub fn is_integer(&self) -> bool {
        self.exp >= 0
    }

    /// The value as an i128 when it is an integer that fits.
    pub fn to_i128(&self) -> Option<i128> {
        if self.is_zero() {
            return Some(0);
        }
        if self.exp < 0 || self.digits.len() as i64 + self.exp > 36 {
            return None;
        }
        let mut v: i128 = self.digits.parse().ok()?;
        for _ in 0..self.exp {
            v = v.checked_mul(10)?;
        }
        Some(if self.neg { -v } else { v })
    }

    /// Largest integer <= self, when it fits in an i128.
    pub fn floor(&self) -> Option<i128> {
        if self.is_integer() {
            return self.to_i128();
        }
        let int_len = self.digits.len() as i64 + self.exp;
        let trunc: i128 = if int_len <= 0 {
            0
        } else {
            if int_len > 36 {
                return None;
            }
            self.digits[..int_len as usize].parse().ok()?
        };
        // self is not an integer, so there is a fractional part.
        Some(if self.neg { -trunc - 1 } else { trunc })
    }

    /// Smallest integer >= self, when it fits in an i128.
    pub fn ceil(&self) -> Option<i128> {
        if self.is_integer() {
            return self.to_i128();
        }
        let neg = Dec { neg: !self.neg, digits: self.digits.clone(), exp: self.exp };
        neg.floor().map(|f| -f)
    }

    /// `Some(true)` when `other` is an integer multiple of `self` (both non-zero).
    pub fn divides(&self, other: &Dec) -> Option<bool> {
        if self.is_zero() || other.is_zero() {
            return None;
        }
        let e = self.exp.min(other.exp);
        let scale = |d: &Dec| -> Option<i128> {
            let shift = d.exp - e;
            if d.digits.len() as i64 + shift > 36 {
                return None;
            }
            let mut v: i128 = d.digits.parse().ok()?;
            for _ in 0..shift {
                v = v.checked_mul(10)?;
            }
            Some(v)
        };
        let a = scale(self)?;
        let b = scale(other)?;
        Some(b % a == 0)
    }

    /// The one canonical spelling of this value: plain integer or plain decimal where short
    /// enough, `<digits>e<exp>` otherwise. Two numbers are equal iff their canonical spellings are.
    pub fn canonical(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        let len = self.digits.len() as i64;
        if self.exp >= 0 && len + self.exp <= 40 {
            s.push_str(&self.digits);
            for _ in 0..self.exp {
                s.push('0');
            }
        } else if self.exp < 0 && -self.exp <= 40 {
            let point = len + self.exp; // digits before the decimal point
            if point > 0 {
                s.push_str(&self.digits[..point as usize]);
                s.push('.');
                s.push_str(&self.digits[point as usize..]);
            } else {
                s.push_str("0.");
                for _ in 0..(-point) {
                    s.push('0');
                }
                s.push_str(&self.digits);
            }
        } else {
            s.push_str(&self.digits);
            s.push('e');
            s.push_str(&self.exp.to_string());
        }
        s
    }

    pub fn to_number(&self) -> Number {
        Number::from_string_unchecked(self.canonical())
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Dec| -> i8 {
            if d.is_zero() {
                0
            } else if d.neg {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self), sign(other));
        if sa != sb {
            return sa.cmp(&sb);
        }
        if sa == 0 {
            return Ordering::Equal;
        }
        // Same sign, both non-zero: compare magnitudes.
        let mag = {
            let ma = self.digits.len() as i64 + self.exp; // position of the leading digit
            let mb = other.digits.len() as i64 + other.exp;
            if ma != mb {
                ma.cmp(&mb)
            } else {
                let (a, b) = (self.digits.as_bytes(), other.digits.as_bytes());
                let n = a.len().max(b.len());
                let mut ord = Ordering::Equal;
                for i in 0..n {
                    let x = a.get(i).copied().unwrap_or(b'0');
                    let y = b.get(i).copied().unwrap_or(b'0');
                    if x != y {
                        ord = x.cmp(&y);
                        break;
                    }
                }
                ord
            }
        };
        if sa < 0 {
            mag.reverse()
        } else {
            mag
        }
    }
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Rewrite every number inside `v` to its canonical spelling (depth-capped, never panics).
pub fn canonicalize_numbers(v: &mut Value, depth: usize) {
    if depth > super::MAX_DEPTH * 4 {
        return;
    }
    match v {
        Value::Number(n) => {
            if let Some(d) = Dec::from_number(n) {
                *n = d.to_number();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| canonicalize_numbers(x, depth + 1)),
        Value::Object(m) => m.values_mut().for_each(|x| canonicalize_numbers(x, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dec {
        Dec::parse(s).unwrap()
    }

    #[test]
    fn equal_spellings() {
        assert_eq!(d("1e3"), d("1000"));
        assert_eq!(d("1000.0"), d("1000"));
        assert_eq!(d("1E+3"), d("1000"));
        assert_eq!(d("0.5"), d("5e-1"));
        assert_eq!(d("-0"), d("0"));
        assert_eq!(d("0.000"), d("0"));
        assert_ne!(d("0.1"), d("0.10000000000000001"));
        assert_eq!(d("1e3").canonical(), "1000");
        assert_eq!(d("12.50").canonical(), "12.5");
        assert_eq!(d("-0.05").canonical(), "-0.05");
        assert_eq!(d("1e400").canonical(), "1e400");
    }

    #[test]
    fn ordering() {
        assert!(d("1") < d("1.0000000000000000000001"));
        assert!(d("-2") < d("-1.5"));
        assert!(d("-1") < d("0"));
        assert!(d("99") < d("1e2"));
        assert!(d("0.09") < d("0.1"));
    }

    #[test]
    fn floor_ceil() {
        assert_eq!(d("3.5").floor(), Some(3));
        assert_eq!(d("3.5").ceil(), Some(4));
        assert_eq!(d("-3.5").floor(), Some(-4));
        assert_eq!(d("-3.5").ceil(), Some(-3));
        assert_eq!(d("0.5").floor(), Some(0));
        assert_eq!(d("-0.5").ceil(), Some(0));
        assert_eq!(d("1e2").floor(), Some(100));
    }

    #[test]
    fn divides() {
        assert_eq!(d("0.5").divides(&d("1.5")), Some(true));
        assert_eq!(d("2").divides(&d("3")), Some(false));
        assert_eq!(d("5").divides(&d("10")), Some(true));
    }
}
