//! Well-known formats a property's words name without giving a literal (RULES.md, "A session
//! has an order": "a value whose format the words or the schema name … gets a well-formed
//! example of that format when no literal is given"). One table: each format, the words that
//! name it (a word of the property's name, or a phrase of its description), and its examples,
//! which reach nobody (documentation addresses, `.invalid` names). A format JSON Schema names
//! takes its example from [`crate::probe::args::format_value`], the one the schema's `format`
//! gets: one value per format.

use serde_json::Value;

use super::hints;

/// One well-known format.
struct Format {
    /// Words of the property's name that name it (whole words: `cron`, `locale`).
    name_words: &'static [&'static str],
    /// Phrases of its description (or its name's words joined) that name it, lowercased.
    phrases: &'static [&'static str],
    /// JSON Schema `format` names whose example ([`crate::probe::args::format_value`]) it
    /// takes, best first.
    schema: &'static [&'static str],
    /// Further well-formed examples, after those.
    examples: &'static [&'static str],
}

const FORMATS: &[Format] = &[
    Format {
        name_words: &["cron"],
        phrases: &["cron expression", "cron schedule", "crontab"],
        schema: &[],
        examples: &["0 0 * * *"],
    },
    Format {
        name_words: &["color", "colour"],
        phrases: &["hex color", "hex colour", "color code", "colour code", "#rrggbb"],
        schema: &[],
        examples: &["#1F4E78", "red"],
    },
    Format {
        name_words: &["semver"],
        phrases: &["semantic version", "semver", "version number", "version string"],
        schema: &[],
        examples: &["1.0.0"],
    },
    Format {
        name_words: &["datetime", "timestamp"],
        phrases: &["iso 8601 date", "iso8601", "iso 8601", "date-time", "datetime", "timestamp", "yyyy-mm-ddthh"],
        schema: &["date-time", "date"],
        examples: &[],
    },
    Format {
        name_words: &["date", "day"],
        phrases: &["yyyy-mm-dd", "iso date", "date in", "a date", "the date"],
        schema: &["date"],
        examples: &[],
    },
    Format { name_words: &[], phrases: &["hh:mm"], schema: &[], examples: &["09:00"] },
    Format {
        name_words: &["timezone", "tz"],
        phrases: &["time zone", "timezone", "iana"],
        schema: &[],
        examples: &["UTC", "Europe/London"],
    },
    Format {
        name_words: &["locale"],
        phrases: &["locale", "bcp 47", "bcp47", "language tag"],
        schema: &[],
        examples: &["en-US", "en"],
    },
    Format {
        name_words: &["lang", "language"],
        phrases: &["language code", "iso 639", "iso-639", "two-letter language"],
        schema: &[],
        examples: &["en"],
    },
    Format {
        name_words: &["country"],
        phrases: &["country code", "iso 3166", "iso-3166", "two-letter country"],
        schema: &[],
        examples: &["US"],
    },
    Format {
        name_words: &["currency"],
        phrases: &["currency code", "iso 4217", "iso-4217"],
        schema: &[],
        examples: &["USD"],
    },
    Format {
        name_words: &["mime", "mimetype"],
        phrases: &["mime type", "mime-type", "media type", "content type", "content-type"],
        schema: &[],
        examples: &["text/plain"],
    },
    Format { name_words: &["email"], phrases: &["email address", "e-mail"], schema: &["email"], examples: &[] },
    Format {
        name_words: &["url", "uri", "href", "link", "endpoint"],
        phrases: &["url", "http address", "web address"],
        schema: &["uri"],
        examples: &[],
    },
    Format { name_words: &["uuid", "guid"], phrases: &["uuid", "guid"], schema: &["uuid"], examples: &[] },
    Format { name_words: &["ip"], phrases: &["ip address", "ipv4"], schema: &["ipv4"], examples: &[] },
    Format {
        name_words: &["hostname", "domain", "host"],
        phrases: &["hostname", "domain name"],
        schema: &["hostname"],
        examples: &[],
    },
    Format { name_words: &[], phrases: &["iso 8601 duration"], schema: &["duration"], examples: &[] },
];

/// The examples of every well-known format the property `prop`'s name or description `desc`
/// names, best first, as strings (the caller keeps those its schema accepts).
pub fn examples(prop: &str, desc: &str) -> Vec<Value> {
    let words = hints::words(prop);
    let text = desc.to_lowercase();
    let mut out: Vec<Value> = Vec::new();
    for f in FORMATS {
        let named = f.name_words.iter().any(|w| words.iter().any(|x| x == w))
            || f.phrases.iter().any(|p| contains_phrase(&text, p));
        if named {
            let schema = f.schema.iter().filter_map(|n| crate::probe::args::format_value(n));
            for e in schema.chain(f.examples.iter().copied()) {
                let v = Value::String(e.to_string());
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Whether `text` holds `phrase` not as part of a longer word (`url` in "a URL", not in "curly").
fn contains_phrase(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + phrase.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(prop: &str, desc: &str) -> Option<String> {
        examples(prop, desc).first().and_then(|v| v.as_str()).map(str::to_string)
    }

    #[test]
    fn a_format_the_words_name_gets_a_well_formed_example() {
        assert_eq!(first("schedule", "Cron expression for when the job runs").as_deref(), Some("0 0 * * *"));
        assert_eq!(first("fill_color", "Fill of the cell").as_deref(), Some("#1F4E78"));
        assert_eq!(first("version", "The semantic version to release").as_deref(), Some("1.0.0"));
        assert_eq!(first("start", "Start date (YYYY-MM-DD)").as_deref(), Some("2000-01-01"));
        assert_eq!(first("createdAfter", "An ISO 8601 timestamp").as_deref(), Some("2000-01-01T00:00:00Z"));
        assert_eq!(first("target_lang", "Language code of the translation").as_deref(), Some("en"));
        assert_eq!(first("mimeType", "").as_deref(), Some("text/plain"));
        assert_eq!(first("tz", "").as_deref(), Some("UTC"));
        assert_eq!(first("webhook_url", "").as_deref(), Some("https://example.invalid/"));
    }

    #[test]
    fn words_that_only_contain_a_format_name_are_not_it() {
        assert!(examples("query", "Curly braces are allowed").is_empty());
        assert!(examples("name", "The name of the sheet").is_empty());
        assert!(examples("hostile", "").is_empty());
    }
}
