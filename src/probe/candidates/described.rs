//! Examples written in a property's description: `IANA timezone name (e.g., 'America/New_York',
//! 'Europe/London')`, `such as "main"`, `` `HEAD~1` ``, or a format spelled as a template
//! (`24-hour format (HH:MM)`, `YYYY-MM-DD`). Each is text; the caller keeps those that validate.

/// Phrases after which a description lists examples.
const MARKERS: &[&str] = &[
    "e.g.",
    "eg.",
    "e.g:",
    "for example",
    "for instance",
    "such as",
    "example:",
    "examples:",
    "like",
    "default:",
    "defaults to",
    "i.e.",
];
/// Longest example taken.
const MAX_LEN: usize = 120;
/// Most examples taken from one description.
const MAX_EXAMPLES: usize = 12;
/// Only the start of a description is read (examples come early; a hostile one is long).
const MAX_READ: usize = 2_048;

/// The examples a description gives, in order: those after an example phrase, then quoted ones
/// anywhere, then values made from format templates. Deduplicated; never empty strings.
pub fn examples(desc: &str) -> Vec<String> {
    let desc = at_most(desc, MAX_READ);
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim();
        if !s.is_empty()
            && s.chars().count() <= MAX_LEN
            && !s.chars().any(char::is_control)
            && !out.iter().any(|o| o == s)
        {
            out.push(s.to_string());
        }
    };
    for rest in after_phrases(desc, MARKERS) {
        for piece in after_marker(rest) {
            push(&piece);
        }
    }
    for q in quoted(desc) {
        push(&q);
    }
    for t in templates(desc) {
        push(&t);
    }
    out.truncate(MAX_EXAMPLES);
    out
}

/// The values a text gives property `prop` by name, in order: `promptId: 'onb2_01'`,
/// `get_prompts(action='get_prompt', promptId='onb2_01')`, `{ "message": "feat: add login" }`.
/// A value is quoted, or a number; the name is whole (`id` in `promptId` is not `id`).
/// Deduplicated; never empty strings. A tool's description shows its calls this way.
pub fn given(text: &str, prop: &str) -> Vec<String> {
    let text = at_most(text, MAX_READ * 2);
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut out: Vec<String> = Vec::new();
    if prop.is_empty() {
        return out;
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(prop) {
        let start = from + i;
        from = start + prop.len();
        if text[..start].chars().next_back().is_some_and(ident) || text[from..].chars().next().is_some_and(ident) {
            continue;
        }
        let rest = text[from..].trim_start_matches(['"', '\'', '`']).trim_start();
        let Some(rest) = rest.strip_prefix([':', '=']) else { continue };
        if forbidden_before(&text[..start].chars().collect::<Vec<char>>()) {
            continue;
        }
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('\'' | '"' | '`')) => {
                rest[1..].find(q).map(|end| &rest[1..1 + end]).filter(|v| !v.contains('\n'))
            }
            Some(c) if c.is_ascii_digit() || c == '-' => {
                let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(rest.len());
                Some(rest[..end].trim_end_matches('.')).filter(|v| v.parse::<f64>().is_ok())
            }
            _ => None,
        };
        if let Some(v) = value.map(str::trim) {
            if !v.is_empty()
                && v.chars().count() <= MAX_LEN
                && !v.chars().any(char::is_control)
                && !out.iter().any(|o| o == v)
            {
                out.push(v.to_string());
            }
        }
        if out.len() >= MAX_EXAMPLES {
            break;
        }
    }
    out
}

/// The first call a text shows as a JSON object of arguments (`Root note: { "vault": "vault1",
/// "filename": "note.md" }`), when every value is a string, a number or a flag: never one shown
/// as wrong (`INCORRECT: { … }`). A tool whose schema declares no argument but whose
/// description shows them takes the shown ones as its arguments.
pub fn shown_call(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let text = at_most(text, MAX_READ * 2);
    let mut from = 0;
    while let Some(i) = text[from..].find('{') {
        let start = from + i;
        from = start + 1;
        let Some(len) = text[start..].char_indices().take(MAX_LEN * 8).find(|(_, c)| *c == '}').map(|(j, _)| j) else {
            continue;
        };
        let Ok(serde_json::Value::Object(m)) = serde_json::from_str(&text[start..=start + len]) else { continue };
        let scalars = m.values().all(|v| v.is_string() || v.is_number() || v.is_boolean());
        if !m.is_empty() && scalars && !forbidden_before(&text[..start].chars().collect::<Vec<char>>()) {
            return Some(m);
        }
    }
    None
}

/// The line a tool's description gives property `prop` in its argument list (a Python
/// docstring's `Args:`, `Arguments:` or `Parameters:` section): `connector_type: Type of connector
/// ("straight", "elbow", "curved")`, `path (str): the file`, with the lines indented under it.
/// A property whose schema says nothing of it is described there.
pub fn argument_line(text: &str, prop: &str) -> Option<String> {
    let text = at_most(text, MAX_READ * 4);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| {
        matches!(l.trim().to_ascii_lowercase().as_str(), "args:" | "arguments:" | "parameters:" | "params:")
    })?;
    let base = indent(lines[header]);
    for (i, line) in lines.iter().enumerate().skip(header + 1) {
        let t = line.trim();
        // The section ends at the next header of its own level (`Returns:`).
        if !t.is_empty() && indent(line) <= base {
            break;
        }
        let Some(rest) = t.strip_prefix(prop) else { continue };
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('(') {
            Some(typed) => typed.split_once(')').map_or("", |(_, r)| r).trim_start(),
            None => rest,
        };
        let Some(said) = rest.strip_prefix(':') else { continue };
        let mut out = said.trim().to_string();
        for more in lines[i + 1..].iter().take_while(|m| !m.trim().is_empty() && indent(m) > indent(line)) {
            out.push(' ');
            out.push_str(more.trim());
        }
        let out: String = out.chars().take(MAX_LEN * 4).collect();
        return (!out.is_empty()).then_some(out);
    }
    None
}

/// The first `n` characters of `text` (all of it when shorter): what is read of a text that
/// could be long.
fn at_most(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The text after each whole-word occurrence of one of `phrases` in `text` (case-insensitive),
/// phrase by phrase in order. Only where lower-casing kept every byte offset (ASCII text, in
/// practice). A phrase starts a word (`like` inside `likely` is not one), and one that ends in
/// a letter ends one.
pub fn after_phrases<'a>(text: &'a str, phrases: &[&str]) -> Vec<&'a str> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    if lower.len() != text.len() {
        return out;
    }
    for m in phrases {
        let mut from = 0;
        while let Some(i) = lower[from..].find(m) {
            let start = from + i;
            from = start + m.len();
            if start > 0 && text[..start].chars().next_back().is_some_and(char::is_alphanumeric) {
                continue;
            }
            if m.chars().last().is_some_and(char::is_alphabetic)
                && text[from..].chars().next().is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            out.push(&text[from..]);
        }
    }
    out
}

/// The values listed at the start of `rest` (as after an example phrase), trimmed and
/// deduplicated; never empty ones.
pub fn list(rest: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in after_marker(rest) {
        let p = p.trim().to_string();
        if !p.is_empty() && p.chars().count() <= MAX_LEN && !p.chars().any(char::is_control) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The list after an example phrase: up to the closing parenthesis, a sentence end, a
/// semicolon or a line end; split on commas and `or`/`and`; each piece unquoted.
fn after_marker(rest: &str) -> Vec<String> {
    let rest = rest.trim_start_matches([',', ':', ' ']);
    // A list of examples is short: never read past a few of them.
    let rest = at_most(rest, MAX_LEN * 4);
    let mut end = rest.len();
    let mut depth_quote: Option<char> = None;
    for (i, c) in rest.char_indices() {
        match depth_quote {
            Some(q) if c == q => depth_quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' | '`' => depth_quote = Some(c),
                ')' | ']' | ';' | '\n' => {
                    end = i;
                    break;
                }
                '.' if rest[i + 1..].starts_with(' ') || i + 1 == rest.len() => {
                    end = i;
                    break;
                }
                _ => {}
            },
        }
    }
    let list = &rest[..end];
    let mut out = Vec::new();
    for piece in split_list(list) {
        let p = piece.trim();
        let unquoted = strip_quotes(p);
        // An unquoted piece is an example only when it is one token (`such as main`), not prose.
        if unquoted.len() != p.len() || !p.contains(' ') {
            out.push(unquoted.to_string());
        }
    }
    out
}

/// Split on commas and the words `or` / `and`, outside quotes.
fn split_list(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = list.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if matches!(c, '\'' | '"' | '`') && cur.trim().is_empty() {
            quote = Some(c);
            cur.push(c);
            i += 1;
            continue;
        }
        if c == ',' {
            out.push(std::mem::take(&mut cur));
            i += 1;
            continue;
        }
        let rest: String = chars[i..].iter().collect();
        let sep = [" or ", " and "].into_iter().find(|s| rest.starts_with(s));
        if let Some(s) = sep {
            out.push(std::mem::take(&mut cur));
            i += s.chars().count();
            continue;
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

fn strip_quotes(s: &str) -> &str {
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '`'), ('‘', '’'), ('“', '”')] {
        if let Some(inner) = s.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
            return inner;
        }
    }
    s
}

/// Spans in quotes (`'x'`, `"x"`, `` `x` ``, `‘x’`, `“x”`) that open after a non-letter and close
/// before one (an apostrophe in `don't` opens nothing).
pub fn quoted(desc: &str) -> Vec<String> {
    let chars: Vec<char> = desc.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let close = match c {
            '\'' => '\'',
            '"' => '"',
            '`' => '`',
            '‘' => '’',
            '“' => '”',
            _ => {
                i += 1;
                continue;
            }
        };
        let opens = i == 0 || !chars[i - 1].is_alphanumeric();
        if !opens {
            i += 1;
            continue;
        }
        // A quote closes within an example's length, or it is not one.
        let window = &chars[i + 1..chars.len().min(i + 2 + MAX_LEN)];
        let Some(len) = window.iter().position(|x| *x == close || *x == '\n') else {
            i += 1;
            continue;
        };
        let j = i + 1 + len;
        if chars[j] != close {
            i = j;
            continue;
        }
        let closes = j + 1 == chars.len() || !chars[j + 1].is_alphanumeric();
        if closes && len > 0 && !forbidden_before(&chars[..i]) {
            out.push(chars[i + 1..j].iter().collect());
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Words that make what follows a value the tool refuses: `Must not start with "-"`,
/// `cannot contain '..'`, `other than 'HEAD'`.
const PROHIBITIONS: &[&str] = &[
    "must not",
    "mustn't",
    "incorrect",
    "wrong",
    "cannot",
    "can't",
    "can not",
    "should not",
    "shouldn't",
    "never",
    "not allowed",
    "do not",
    "don't",
    "not start",
    "not end",
    "not contain",
    "not include",
    "not be",
    "except",
    "other than",
    "without",
    "avoid",
    "forbidden",
    "disallowed",
    "reject",
    "invalid",
    "no ",
];

/// Whether the sentence before a quote (back to its start, at most 60 characters) forbids what
/// the quote holds, so the quote is no example.
fn forbidden_before(before: &[char]) -> bool {
    // A sentence ends at `;`, a line end, or `.`, `!`, `?` before a space (`'..'` ends nothing).
    let ends = |i: usize| match before[i] {
        ';' | '\n' => true,
        '.' | '!' | '?' => before.get(i + 1).is_some_and(|c| c.is_whitespace()),
        _ => false,
    };
    let start = (0..before.len()).rev().find(|&i| ends(i)).map_or(0, |i| i + 1);
    let from = start.max(before.len().saturating_sub(60));
    let sentence: String = before[from..].iter().collect::<String>().to_lowercase();
    let sentence = format!(" {sentence}");
    PROHIBITIONS.iter().any(|p| sentence.contains(&format!(" {p}")))
}

/// Values for format templates written in a description: `HH:MM` → `00:00`, `YYYY-MM-DD` →
/// `2000-01-01`, `YYYY-MM-DDTHH:MM:SS` → `2000-01-01T00:00:00` (the same fixed instant the
/// schema's `format` values use).
pub fn templates(desc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in desc.split(|c: char| c.is_whitespace() || "()[],;'\"`".contains(c)) {
        let token = token.trim_end_matches('.');
        if let Some(v) = template_value(token) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

fn template_value(token: &str) -> Option<String> {
    const PARTS: &[&str] = &["YYYY", "YY", "MM", "DD", "HH", "hh", "mm", "SS", "ss"];
    let mut out = String::new();
    let mut rest = token;
    let mut parts = 0;
    let mut seen_hour = false;
    let mut seen_date = false;
    while !rest.is_empty() {
        if let Some(p) = PARTS.iter().find(|p| rest.starts_with(**p)) {
            let v = match *p {
                "YYYY" => "2000",
                "YY" => "00",
                "DD" => "01",
                "MM" if !seen_hour && seen_date => "01",
                "MM" if !seen_hour && rest[2..].starts_with(['-', '/', '.']) => "01",
                "HH" | "hh" => "00",
                _ => "00",
            };
            match *p {
                "YYYY" | "YY" | "DD" => seen_date = true,
                "HH" | "hh" => seen_hour = true,
                "MM" if v == "01" => seen_date = true,
                _ => {}
            }
            out.push_str(v);
            rest = &rest[p.len()..];
            parts += 1;
        } else {
            let c = rest.chars().next()?;
            if !"-:/T. ".contains(c) {
                return None;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    (parts >= 2).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_a_text_gives_a_property_by_name() {
        let d = "1. Organize my Downloads folder (promptId: 'onb2_01')\n- \"2\" → get_prompts(action='get_prompt', promptId='onb2_02')";
        assert_eq!(given(d, "promptId"), ["onb2_01", "onb2_02"]);
        assert_eq!(given(d, "action"), ["get_prompt"]);
        assert_eq!(
            given("- Single line: { \"message\": \"feat: add user authentication\" }", "message"),
            ["feat: add user authentication"]
        );
        assert_eq!(given("Use limit: 10 or limit=20.", "limit"), ["10", "20"]);
        assert!(given(d, "id").is_empty(), "a name is whole: `promptId` holds no `id`");
        assert!(given("path: the file to read", "path").is_empty(), "a value is quoted or a number, never prose");
        assert!(given("message: ''", "message").is_empty(), "never an empty value");
    }

    #[test]
    fn a_call_the_text_shows_is_read_unless_shown_as_wrong() {
        let d = "Edit a note.\nExamples:\n- INCORRECT: { \"filename\": \"journal/2024/note.md\" }\n- Root note: { \"vault\": \"vault1\", \"filename\": \"note.md\", \"operation\": \"append\" }";
        let m = shown_call(d).unwrap();
        assert_eq!(m["filename"], "note.md");
        assert_eq!(m["operation"], "append");
        assert!(shown_call("Returns { \"items\": [1, 2] } or {broken").is_none(), "an answer's shape is no call");
        assert_eq!(given(d, "filename"), ["note.md"], "a value shown as wrong is none");
    }

    #[test]
    fn the_line_a_docstring_gives_an_argument() {
        let d = "\n        Add connector lines.\n\n        Args:\n            slide_index: Index of the slide (0-based)\n            connector_type: Type of connector (\"straight\", \"elbow\", \"curved\")\n            path (str): the file,\n                relative to the project\n\n        Returns:\n            connector_type: not an argument\n";
        assert_eq!(
            argument_line(d, "connector_type").as_deref(),
            Some("Type of connector (\"straight\", \"elbow\", \"curved\")")
        );
        assert_eq!(examples(&argument_line(d, "connector_type").unwrap()), ["straight", "elbow", "curved"]);
        assert_eq!(argument_line(d, "path").as_deref(), Some("the file, relative to the project"));
        assert_eq!(argument_line(d, "slide").as_deref(), None, "a name is whole");
        assert_eq!(argument_line("connector_type: a line", "connector_type"), None, "only in an argument list");
    }

    #[test]
    fn examples_after_e_g_in_quotes() {
        let d = "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no timezone provided by the user.";
        assert_eq!(examples(d), ["America/New_York", "Europe/London", "UTC"]);
    }

    #[test]
    fn examples_after_other_phrases() {
        assert_eq!(examples("A branch, such as main or develop."), ["main", "develop"]);
        assert_eq!(examples("The unit, for example \"celsius\""), ["celsius"]);
        assert_eq!(examples("Ref to show (e.g. HEAD~1)"), ["HEAD~1"]);
        assert_eq!(examples("Defaults to 10."), ["10"]);
    }

    #[test]
    fn prose_after_a_phrase_is_not_an_example() {
        // `like` followed by words, `likely` containing `like`.
        assert!(examples("Behaves like the other tool does.").is_empty());
        assert!(examples("This is likely slow").is_empty());
    }

    #[test]
    fn quotes_need_word_boundaries() {
        assert!(quoted("Don't do it, it's slow").is_empty());
        assert_eq!(
            quoted("Whether to list local branches ('local'), remote ('remote') or all('all')."),
            ["local", "remote", "all"]
        );
        assert_eq!(quoted("use `SELECT 1` or “x”"), ["SELECT 1", "x"]);
        assert!(quoted("unclosed 'quote").is_empty());
        // A prohibition is no example (`-` from `Must not start with "-"` was sent once).
        assert!(quoted("Branch name. Must not start with \"-\".").is_empty());
        assert!(quoted("A path; cannot contain '..' or `~`").is_empty());
        assert_eq!(quoted("Must not be empty. Use 'main' for the default"), ["main"]);
        assert_eq!(examples("Revision (e.g. 'HEAD~1'); never '-'"), ["HEAD~1"]);
    }

    #[test]
    fn format_templates_give_the_fixed_instant() {
        assert_eq!(examples("Time to convert in 24-hour format (HH:MM)"), ["00:00"]);
        assert_eq!(templates("a date YYYY-MM-DD."), ["2000-01-01"]);
        assert_eq!(templates("YYYY-MM-DDTHH:MM:SS"), ["2000-01-01T00:00:00"]);
        assert_eq!(templates("MM/DD/YYYY"), ["01/01/2000"]);
        assert!(templates("MM alone, HH too").is_empty());
        assert!(templates("HHMM?").is_empty());
    }

    #[test]
    fn a_long_hostile_description_is_read_in_bounded_time() {
        let hostile = format!("{}{}", " \u{201c}x".repeat(200_000), "like ".repeat(100_000));
        let started = std::time::Instant::now();
        let _ = examples(&hostile);
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn nothing_from_an_empty_or_plain_description() {
        assert!(examples("").is_empty());
        assert!(examples("The path of the file to read").is_empty());
    }
}
