//! The spellings a text takes on its way out, undone: a decoded view of a text in which every
//! escape is replaced by what it stands for, with, for every decoded byte, the span of the
//! original text it came from. [`crate::secrets::mask`] looks for registered values in the view,
//! so a value is masked in the original whatever escapes spelled it, and however they mix.
//!
//! Decoded in one pass (and again on the result, for an escape spelled with escapes):
//! - backslash escapes: JSON's `\uXXXX` (surrogate pairs joined) and `\" \\ \/ \b \f \n \r \t`,
//!   Rust's and mcp-pin's one-line display `\u{XXXX}`, `\xHH`, and a backslash before any other
//!   ASCII punctuation (Markdown's escapes);
//! - percent-encoding `%HH` (URLs, GitHub's workflow-command data), either case;
//! - XML and HTML character references `&#NN;`, `&#xHH;` and `&amp; &lt; &gt; &quot; &apos;`.

/// A decoded view of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The decoded bytes (percent-escapes may make them invalid UTF-8).
    pub bytes: Vec<u8>,
    /// For each decoded byte, the span `start..end` of the original text it came from.
    pub spans: Vec<(usize, usize)>,
}

impl View {
    /// The span of the original text that decoded bytes `start..end` came from.
    pub fn origin(&self, start: usize, end: usize) -> (usize, usize) {
        (self.spans[start].0, self.spans[end - 1].1)
    }
}

/// Whether `text` holds anything [`decode`] would change.
pub fn may_be_escaped(text: &[u8]) -> bool {
    text.iter().any(|b| matches!(b, b'\\' | b'%' | b'&'))
}

/// The views of `text` with its escapes decoded: one per round (up to three, each decoding the
/// one before, for an escape spelled with escapes), none when nothing in it is an escape. Each
/// round is a view of its own, since a value may itself hold what a further round would decode.
pub fn decode(text: &[u8]) -> Vec<View> {
    let mut views: Vec<View> = Vec::new();
    let Some(mut view) = decode_once(text) else { return views };
    for _ in 0..2 {
        if !may_be_escaped(&view.bytes) {
            break;
        }
        let Some(next) = decode_once(&view.bytes) else { break };
        // Spans of the next round point into this view: map them back to the original.
        let spans = next.spans.iter().map(|&(s, e)| view.origin(s, e)).collect();
        let next = View { bytes: next.bytes, spans };
        views.push(std::mem::replace(&mut view, next));
    }
    views.push(view);
    views
}

fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// `n` hex digits at `text[at..]` as a number.
fn hex_at(text: &[u8], at: usize, n: usize) -> Option<u32> {
    let digits = text.get(at..at + n)?;
    digits.iter().try_fold(0u32, |acc, &b| Some(acc * 16 + hex(b)?))
}

/// One escape at `text[i..]`: what it stands for and how long it is.
enum Decoded {
    Char(char),
    Byte(u8),
}

fn escape_at(text: &[u8], i: usize) -> Option<(Decoded, usize)> {
    match text[i] {
        b'\\' => {
            let next = *text.get(i + 1)?;
            match next {
                b'u' if text.get(i + 2) == Some(&b'{') => {
                    let close = text[i + 3..].iter().take(7).position(|&b| b == b'}')?;
                    if close == 0 {
                        return None;
                    }
                    let v = hex_at(text, i + 3, close)?;
                    Some((Decoded::Char(char::from_u32(v)?), close + 4))
                }
                b'u' => {
                    let v = hex_at(text, i + 2, 4)?;
                    if (0xD800..0xDC00).contains(&v) {
                        // A high surrogate: joined with the low one that must follow.
                        if text.get(i + 6) == Some(&b'\\') && text.get(i + 7) == Some(&b'u') {
                            let low = hex_at(text, i + 8, 4)?;
                            if (0xDC00..0xE000).contains(&low) {
                                let c = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
                                return Some((Decoded::Char(char::from_u32(c)?), 12));
                            }
                        }
                        return None;
                    }
                    Some((Decoded::Char(char::from_u32(v)?), 6))
                }
                b'x' => Some((Decoded::Byte(hex_at(text, i + 2, 2)? as u8), 4)),
                b'n' => Some((Decoded::Char('\n'), 2)),
                b'r' => Some((Decoded::Char('\r'), 2)),
                b't' => Some((Decoded::Char('\t'), 2)),
                b'b' => Some((Decoded::Char('\u{8}'), 2)),
                b'f' => Some((Decoded::Char('\u{c}'), 2)),
                c if c.is_ascii_punctuation() => Some((Decoded::Char(c as char), 2)),
                _ => None,
            }
        }
        b'%' => Some((Decoded::Byte(hex_at(text, i + 1, 2)? as u8), 3)),
        b'&' => {
            let end = text[i + 1..].iter().take(10).position(|&b| b == b';')? + i + 1;
            let name = &text[i + 1..end];
            let c = match name {
                b"amp" => '&',
                b"lt" => '<',
                b"gt" => '>',
                b"quot" => '"',
                b"apos" => '\'',
                [b'#', b'x' | b'X', digits @ ..] if !digits.is_empty() => {
                    char::from_u32(hex_at(digits, 0, digits.len())?)?
                }
                [b'#', digits @ ..] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
                    char::from_u32(std::str::from_utf8(digits).ok()?.parse().ok()?)?
                }
                _ => return None,
            };
            Some((Decoded::Char(c), end + 1 - i))
        }
        _ => None,
    }
}

/// One round of decoding, or `None` when nothing was an escape.
fn decode_once(text: &[u8]) -> Option<View> {
    if !may_be_escaped(text) {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len());
    let mut spans = Vec::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < text.len() {
        if let Some((d, len)) = escape_at(text, i) {
            changed = true;
            let span = (i, i + len);
            match d {
                Decoded::Byte(b) => {
                    bytes.push(b);
                    spans.push(span);
                }
                Decoded::Char(c) => {
                    let mut buf = [0u8; 4];
                    for &b in c.encode_utf8(&mut buf).as_bytes() {
                        bytes.push(b);
                        spans.push(span);
                    }
                }
            }
            i += len;
            continue;
        }
        // A character as it is: every byte of it stands for the whole character, so a span
        // never ends inside one.
        let len = utf8_len(text[i]).min(text.len() - i);
        for k in 0..len {
            bytes.push(text[i + k]);
            spans.push((i, i + len));
        }
        i += len;
    }
    changed.then_some(View { bytes, spans })
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last round's view as text.
    fn decoded(s: &str) -> String {
        String::from_utf8_lossy(&decode(s.as_bytes()).pop().map(|v| v.bytes).unwrap_or_else(|| s.as_bytes().to_vec()))
            .into_owned()
    }

    #[test]
    fn every_escape_the_outputs_use_is_undone() {
        assert_eq!(decoded(r"a\u002Bb"), "a+b");
        assert_eq!(decoded(r"a\u{2B}b \u{1F600}"), "a+b 😀");
        assert_eq!(decoded(r#"\ud83d\ude00 \n\t\/\\\"\|"#), "😀 \n\t/\"|", "two rounds");
        let rounds: Vec<Vec<u8>> = decode(br#"a\\\"b"#).into_iter().map(|v| v.bytes).collect();
        assert_eq!(rounds, [br#"a\"b"#.to_vec(), br#"a"b"#.to_vec()], "every round is a view");
        assert_eq!(decoded("a%2Bb%2fc %zz"), "a+b/c %zz");
        assert_eq!(decoded("&#43;&#x2b;&amp;&lt;&gt;&quot;&apos; &nope; & x"), "++&<>\"' &nope; & x");
        assert_eq!(decoded(r"\x2B"), "+");
        // An escape spelled with escapes (percent-encoded JSON) takes a second round.
        assert_eq!(decoded("%5Cu002B"), "+");
        assert_eq!(decoded("&amp;#43;"), "+");
        // Nothing to decode, or broken escapes: no view, or the text as it is.
        assert!(decode(b"plain text").is_empty());
        assert_eq!(decoded(r"\u12 \uZZZZ \u{} \ud800x %4"), r"\u12 \uZZZZ \u{} \ud800x %4");
    }

    #[test]
    fn spans_point_at_whole_escapes_and_characters() {
        let text = "é%2Bx";
        let v = decode(text.as_bytes()).pop().unwrap();
        assert_eq!(v.bytes, "é+x".as_bytes());
        assert_eq!(v.origin(0, 1), (0, 2), "a byte of é stands for the whole character");
        assert_eq!(v.origin(2, 3), (2, 5));
        assert_eq!(v.origin(0, 4), (0, 6));
        let v = decode(b"%5Cu002B!").pop().unwrap();
        assert_eq!(v.bytes, b"+!");
        assert_eq!(v.origin(0, 1), (0, 8), "a second round maps back to the original");
    }
}
