//! Files of a kind a project often has none of, written into every sandbox's copy of the project
//! (never into the project itself): a tool that changes things and needs one (`add_picture`,
//! `insert_image`) gets a file that exists in the place it is called, at `check` as at `lock`.
//! A name the project already holds is never written over.

use std::path::Path;

/// One sample file.
pub struct Sample {
    /// Its name in the copy of the project folder.
    pub name: &'static str,
    pub bytes: &'static [u8],
    /// The extensions of the files it stands for: offered only where the project has none.
    pub stands_for: &'static [&'static str],
}

/// A PNG image of one white pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xff, 0xff, 0x3f, 0x00, 0x05, 0xfe, 0x02, 0xfe, 0x0d, 0xef, 0x46, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The sample files, each a kind a probe's words can ask for.
pub const SAMPLES: &[Sample] =
    &[Sample { name: "mcp-pin-sample.png", bytes: PNG, stands_for: &["png", "jpg", "jpeg", "gif", "webp", "bmp"] }];

/// Write the samples into `copy` (a sandbox's copy of the project folder), none whose name is
/// taken there.
pub fn write(copy: &Path) -> std::io::Result<()> {
    for s in SAMPLES {
        let at = copy.join(s.name);
        if std::fs::symlink_metadata(&at).is_err() {
            std::fs::write(at, s.bytes)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_are_what_they_say_and_never_overwrite() {
        assert!(PNG.starts_with(b"\x89PNG\r\n\x1a\n") && PNG.ends_with(b"IEND\xaeB`\x82"));
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("mcp-pin-sample.png"), "the project's own").unwrap();
        write(d.path()).unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("mcp-pin-sample.png")).unwrap(), "the project's own");
        let e = tempfile::tempdir().unwrap();
        write(e.path()).unwrap();
        assert_eq!(std::fs::read(e.path().join("mcp-pin-sample.png")).unwrap(), PNG);
    }
}
