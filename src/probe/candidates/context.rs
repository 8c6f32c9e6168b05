//! The server's own context as paths: folders and files named on its command line, the project
//! folder (the server's working folder) and what lies under it, and the roots mcp-pin declares
//! (the working folder and the folders on the command line: `client::roots`).
//!
//! A path inside the project folder is kept relative to it, so the lock records `docs/guide.md`,
//! never a machine's absolute path, and a call resolves it against the working folder of the
//! session that makes it (a sandboxed session works in a scratch copy). A path outside it is
//! kept as written on the command line.

use std::path::{Component, Path, PathBuf};

use super::hints::{Kind, PathHint};
use super::Source;

/// How deep under the project folder entries are listed (1: its own entries).
const MAX_DEPTH: usize = 2;
/// Most entries kept from the project folder.
const MAX_ENTRIES: usize = 48;
/// Most directory entries read in all (a folder of a million files is not read whole).
const MAX_READ: usize = 2_000;
/// Folders never listed: build output and dependencies, not the project's own files.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__"];
/// mcp-pin's own files: rewritten by `lock`, never an argument.
const OWN_FILES: &[&str] = &["mcp.lock", "mcp-pin.toml"];
/// The name of a path that does not exist yet (for a tool that makes one).
pub const FRESH_NAME: &str = "mcp-pin-probe";

/// One path candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Relative to the project folder (`.` is the folder itself) when `relative`, else as written.
    pub path: String,
    pub relative: bool,
    pub dir: bool,
    pub origin: Source,
}

/// Every path the server's context offers, in order: the command line, the roots, the project
/// folder's entries (breadth first, by name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Paths {
    /// The project folder (absolute), when the server runs on this machine.
    pub base: Option<PathBuf>,
    pub entries: Vec<Entry>,
    /// The server's own program: the command and the script an interpreter runs
    /// ([`own_programs`]), canonical. Never a candidate, whatever names it.
    pub own: Vec<PathBuf>,
    /// The installation of each program outside the project ([`installation`]): nothing in it
    /// is a candidate.
    pub installs: Vec<PathBuf>,
    /// Paths outside the project that the config itself names (its arguments, as written): the
    /// only paths outside the project a candidate may be.
    pub named: Vec<PathBuf>,
}

impl Paths {
    /// The paths of a server started as `args` (each `(value, as written)`: an argument whose
    /// value comes from the environment is never taken) in the folder `base`.
    pub fn scan(base: &Path, args: &[(String, String)]) -> Paths {
        Paths::scan_server(base, "", None, args)
    }

    /// [`Paths::scan`] for a server started as `command` `args`: its own program
    /// ([`own_programs`]) is no "file named on the command line", and neither it nor its
    /// installation is ever a candidate.
    pub fn scan_server(base: &Path, command: &str, path_env: Option<&str>, args: &[(String, String)]) -> Paths {
        let values: Vec<String> = args.iter().map(|(v, _)| v.clone()).collect();
        let own = own_programs(base, command, path_env, &values);
        let installs: Vec<PathBuf> = own.iter().filter_map(|p| installation(base, p)).collect();
        let mut named = Vec::new();
        let mut entries = Vec::new();
        for (value, written) in args {
            if value != written {
                continue;
            }
            let Some(v) = crate::client::roots::path_in_argument(value) else { continue };
            let full = base.join(v);
            let Ok(meta) = std::fs::metadata(&full) else { continue };
            let real = full.canonicalize().unwrap_or_else(|_| full.clone());
            if own.contains(&real) || installs.iter().any(|i| real.starts_with(i)) {
                continue;
            }
            let (path, relative) = match relative_to(base, &full) {
                Some(r) => (r, true),
                None => {
                    named.push(real);
                    (v.to_string(), false)
                }
            };
            push(&mut entries, Entry { path, relative, dir: meta.is_dir(), origin: Source::CommandLine });
        }
        push(&mut entries, Entry { path: ".".into(), relative: true, dir: true, origin: Source::Roots });
        let mut level: Vec<PathBuf> = vec![PathBuf::new()];
        let mut read = 0usize;
        let mut found = 0usize;
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for rel in &level {
                let Ok(rd) = std::fs::read_dir(base.join(rel)) else { continue };
                let mut names: Vec<(String, bool)> = Vec::new();
                for e in rd.flatten() {
                    read += 1;
                    if read > MAX_READ {
                        break;
                    }
                    let Ok(name) = e.file_name().into_string() else { continue };
                    // Symbolic links are not followed: a link may lead anywhere.
                    let Ok(ft) = e.file_type() else { continue };
                    if name.starts_with('.') || ft.is_symlink() {
                        continue;
                    }
                    if ft.is_dir() && SKIPPED_DIRS.contains(&name.as_str()) {
                        continue;
                    }
                    if ft.is_file() && OWN_FILES.contains(&name.as_str()) {
                        continue;
                    }
                    if ft.is_dir() || ft.is_file() {
                        names.push((name, ft.is_dir()));
                    }
                }
                names.sort();
                for (name, dir) in names {
                    let r = rel.join(&name);
                    if found < MAX_ENTRIES {
                        let path = r.to_string_lossy().replace('\\', "/");
                        push(&mut entries, Entry { path, relative: true, dir, origin: Source::ProjectFolder });
                        found += 1;
                    }
                    if dir {
                        next.push(r);
                    }
                }
            }
            level = next;
        }
        entries.retain(|e| {
            let full = base.join(&e.path);
            let real = full.canonicalize().unwrap_or(full);
            !own.contains(&real)
        });
        Paths { base: Some(base.to_path_buf()), entries, own, installs, named }
    }

    /// Whether the absolute path `p` is the server's own program or lies in its installation.
    pub fn is_own(&self, p: &Path) -> bool {
        let real = p.canonicalize().unwrap_or_else(|_| normalize(p));
        self.own.contains(&real) || self.installs.iter().any(|i| real.starts_with(i))
    }

    /// The path candidates for a property with hint `h` of tool `tool`, best first: a new path
    /// when the tool makes one (named for the tool, so two tools never make the same one), then
    /// entries of the kind the words name (files whose type the words name first), two of them
    /// before two of the other kind, then the rest.
    pub fn for_hint(&self, tool: &str, h: &PathHint) -> Vec<Entry> {
        let mut out = Vec::new();
        if h.fresh && self.base.is_some() {
            let stem: String = tool
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
                .take(64)
                .collect();
            // A file of the type the words name first (`csv_path` of `export_csv`: `.csv`).
            let ext = h
                .words
                .iter()
                .find(|w| super::hints::FILE_TYPE_WORDS.contains(&w.as_str()))
                .map_or("txt", String::as_str);
            let name = match h.kind {
                Kind::Dir => format!("{FRESH_NAME}-{stem}"),
                _ => format!("{FRESH_NAME}-{stem}.{ext}"),
            };
            out.push(Entry { path: name, relative: true, dir: h.kind == Kind::Dir, origin: Source::ProjectFolder });
        }
        let wants_dir = match h.kind {
            Kind::Dir => Some(true),
            Kind::File => Some(false),
            Kind::Either => None,
        };
        let (mut first, mut other): (Vec<Entry>, Vec<Entry>) = match wants_dir {
            Some(d) => self.entries.iter().cloned().partition(|e| e.dir == d),
            None => (self.entries.clone(), vec![]),
        };
        // Files of the type the words name first (stable: otherwise in listing order); among
        // those the words say nothing of, one of each kind (extension) before a second of any, so
        // the few sets tried reach a `.docx` as well as a `.txt`.
        for list in [&mut first, &mut other] {
            list.sort_by_key(|e| if e.dir { 0 } else { -affinity(&h.words, &e.path) });
            let liked = list.iter().take_while(|e| !e.dir && affinity(&h.words, &e.path) > 0).count();
            one_of_each_kind(&mut list[liked..]);
        }
        // Two of the kind asked for before two of the other; when the words name no type of
        // file, one of each extension first (up to four).
        let kinds = |l: &[Entry]| {
            let mut k: Vec<String> = l
                .iter()
                .map(|e| {
                    if e.dir {
                        "/".into()
                    } else {
                        e.path.rsplit_once('.').map(|(_, x)| x.to_ascii_lowercase()).unwrap_or_default()
                    }
                })
                .collect();
            k.sort();
            k.dedup();
            k.len()
        };
        let told = first.iter().any(|e| !e.dir && affinity(&h.words, &e.path) > 0);
        // A file of a kind the words name and the project has none of: the sample the sandbox's
        // copy holds (an image for `insert_image`), first after a new path.
        if h.kind != Kind::Dir && !h.fresh {
            let missing = self.samples(|s| affinity(&h.words, s.name) > 0);
            out.extend(missing);
        }
        let a = if told { 2 } else { kinds(&first).clamp(2, 4) };
        let (a, b) = (first.len().min(a), other.len().min(2));
        out.extend(first.drain(..a));
        out.extend(other.drain(..b));
        out.extend(first);
        out.extend(other);
        out
    }
}

/// Reorder the entries the words give no preference to (affinity 0, after those they do) so that
/// the first of each kind (a folder, or a file's extension) comes before the second of any.
fn one_of_each_kind(list: &mut [Entry]) {
    let kind = |e: &Entry| {
        if e.dir {
            "/".to_string()
        } else {
            e.path.rsplit_once('.').map(|(_, x)| x.to_ascii_lowercase()).unwrap_or_default()
        }
    };
    let mut seen: Vec<String> = Vec::new();
    let mut rank: Vec<(usize, usize)> = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        let k = kind(e);
        let repeat = usize::from(seen.contains(&k));
        if repeat == 0 {
            seen.push(k);
        }
        rank.push((repeat, i));
    }
    // Stable: the order within firsts and within repeats is the order given.
    let mut idx: Vec<usize> = (0..list.len()).collect();
    idx.sort_by_key(|i| rank[*i]);
    let copy: Vec<Entry> = idx.iter().map(|i| list[*i].clone()).collect();
    list.clone_from_slice(&copy);
}

fn push(entries: &mut Vec<Entry>, e: Entry) {
    if !entries.iter().any(|x| x.path == e.path && x.relative == e.relative) {
        entries.push(e);
    }
}

/// Interpreters: the first file on their command line is the program they run.
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "deno", "bun", "tsx", "ts-node", "python", "python3", "pypy", "pypy3", "ruby", "perl", "php",
    "java", "sh", "bash", "zsh", "dash", "uv", "uvx", "npx", "pnpm", "yarn", "pipx",
];
/// Extensions of a program file.
const PROGRAM_EXTS: &[&str] =
    &["js", "mjs", "cjs", "ts", "mts", "cts", "py", "pyc", "pyz", "rb", "pl", "php", "jar", "sh"];

/// The server's own program, started as `command` `args` in `base` (`path_env`: the `PATH` it
/// is started with), canonical: the command
/// itself (when it is a file that can be found), the first file an interpreter is given
/// (`node …/dist/index.js`, `python server.py`), and every file on the command line that is a
/// program by its extension (`.js`, `.py`, `.jar`…) or its executable bit.
pub fn own_programs(base: &Path, command: &str, path_env: Option<&str>, args: &[String]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if let Ok(real) = p.canonicalize() {
            if real.is_file() && !out.contains(&real) {
                out.push(real);
            }
        }
    };
    if !command.is_empty() {
        match crate::sandbox::resolve(command, path_env, Some(base)) {
            Ok(p) => add(p),
            Err(_) => add(base.join(command)),
        }
    }
    let name = Path::new(command).file_name().and_then(|n| n.to_str()).unwrap_or("");
    let interpreter = INTERPRETERS.contains(&name) || name.starts_with("python") || name.starts_with("node");
    let mut first = interpreter;
    for a in args {
        let Some(v) = crate::client::roots::path_in_argument(a) else { continue };
        let full = base.join(v);
        let Ok(meta) = std::fs::metadata(&full) else { continue };
        if !meta.is_file() {
            continue;
        }
        let ext = full.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        #[cfg(unix)]
        let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
        #[cfg(not(unix))]
        let executable = false;
        if std::mem::take(&mut first) || PROGRAM_EXTS.contains(&ext.as_str()) || executable {
            add(full);
        }
    }
    out
}

/// The installation of `program` when it lies outside the project `base`: its package (the
/// nearest folder above it holding `package.json`, `pyproject.toml`, `setup.py`, `Cargo.toml`
/// or `pyvenv.cfg`), else its own folder. `None` inside the project (the project is no
/// installation to keep out) or for a program in a system folder of commands.
pub fn installation(base: &Path, program: &Path) -> Option<PathBuf> {
    let base = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    if program.starts_with(&base) {
        return None;
    }
    let marks = ["package.json", "pyproject.toml", "setup.py", "Cargo.toml", "pyvenv.cfg"];
    let found = program.ancestors().skip(1).take(8).find(|d| marks.iter().any(|m| d.join(m).is_file()));
    let dir = found.or_else(|| program.parent())?;
    // `/usr/bin` holds every command, not one installation; nor is a folder above the project one.
    let system = ["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr", "/"];
    if system.iter().any(|s| dir == Path::new(s)) || base.starts_with(dir) {
        return None;
    }
    Some(dir.to_path_buf())
}

/// `full` relative to `base` (`.` for `base` itself), when it lies inside it (compared
/// lexically after resolving `.` and `..`, and through the real folders when both exist).
pub fn relative_to(base: &Path, full: &Path) -> Option<String> {
    let (b, f) = match (std::fs::canonicalize(base), std::fs::canonicalize(full)) {
        (Ok(b), Ok(f)) => (b, f),
        _ => (normalize(base), normalize(full)),
    };
    let rest = f.strip_prefix(&b).ok()?;
    let s = rest.to_string_lossy().replace('\\', "/");
    Some(if s.is_empty() { ".".into() } else { s })
}

pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The project's files whose extension is one of `exts` (lower case, without the dot), in
/// listing order: a rejection that names the extensions it takes ("must point to an Excel file
/// (.xlsm, .xlsx)") is answered with them.
impl Paths {
    pub fn files_with(&self, exts: &[String]) -> Vec<Entry> {
        let ext_of = |p: &str| p.rsplit_once('.').map(|(_, x)| x.to_ascii_lowercase());
        let mut out: Vec<Entry> = self
            .entries
            .iter()
            .filter(|e| !e.dir && ext_of(&e.path).is_some_and(|x| exts.contains(&x)))
            .cloned()
            .collect();
        if out.is_empty() {
            out = self.samples(|s| ext_of(s.name).is_some_and(|x| exts.contains(&x)));
        }
        out
    }

    /// The sample files ([`crate::sandbox::samples`]) `wanted` picks, of a kind the project has
    /// no file of: they exist in the sandbox's copy of the project, not in the project.
    fn samples(&self, wanted: impl Fn(&crate::sandbox::samples::Sample) -> bool) -> Vec<Entry> {
        let has = |kinds: &[&str]| {
            self.entries.iter().any(|e| {
                !e.dir && e.path.rsplit_once('.').is_some_and(|(_, x)| kinds.contains(&x.to_ascii_lowercase().as_str()))
            })
        };
        crate::sandbox::samples::SAMPLES
            .iter()
            .filter(|s| wanted(s) && !has(s.stands_for))
            .map(|s| Entry { path: s.name.to_string(), relative: true, dir: false, origin: Source::Sample })
            .collect()
    }
}

/// How well a file's extension fits the words of a tool and its property (an image for a tool
/// that reads media, a JSON file for one that parses JSON).
fn affinity(words: &[String], path: &str) -> i32 {
    const FAMILIES: &[(&[&str], &[&str])] = &[
        (&["image", "picture", "photo", "media", "png", "jpeg", "jpg"], &["png", "jpg", "jpeg", "gif", "webp", "bmp"]),
        (&["audio", "sound", "media", "wav", "mp3"], &["wav", "mp3", "ogg", "flac"]),
        (&["json"], &["json"]),
        (&["csv", "spreadsheet"], &["csv", "tsv"]),
        (&["markdown"], &["md", "markdown"]),
        (&["pdf"], &["pdf"]),
        (&["database", "db", "sqlite"], &["db", "sqlite", "sqlite3"]),
        (&["text", "txt"], &["txt", "md", "json", "csv", "toml", "yaml", "yml"]),
        (
            &["excel", "workbook", "spreadsheet", "sheet", "worksheet", "cell", "formula", "xlsx", "xlsm", "xls"],
            &["xlsx", "xlsm", "xls"],
        ),
        (&["word", "document", "docx"], &["docx", "doc", "odt"]),
        (&["powerpoint", "presentation", "slide", "slides", "deck", "pptx"], &["pptx", "ppt", "odp"]),
        (&["notebook", "jupyter", "ipynb"], &["ipynb"]),
        (&["html", "page", "webpage"], &["html", "htm"]),
        (&["yaml"], &["yaml", "yml"]),
        (&["toml"], &["toml"]),
        (&["xml"], &["xml"]),
        (&["log", "logs"], &["log"]),
    ];
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    // The extension itself among the words (`Path of the .xlsx file`) counts most.
    let named = if !ext.is_empty() && words.contains(&ext) { 3 } else { 0 };
    named
        + FAMILIES
            .iter()
            .filter(|(ws, exts)| exts.contains(&ext.as_str()) && words.iter().any(|w| ws.contains(&w.as_str())))
            .count() as i32
}

#[cfg(test)]
mod tests {
    use super::super::hints::path_hint;
    use super::*;

    fn project() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir_all(p.join("docs/deep/deeper")).unwrap();
        std::fs::create_dir_all(p.join("node_modules/x")).unwrap();
        std::fs::create_dir_all(p.join(".git")).unwrap();
        std::fs::write(p.join("notes.txt"), "hi").unwrap();
        std::fs::write(p.join("pic.png"), "png").unwrap();
        std::fs::write(p.join("mcp.lock"), "{}").unwrap();
        std::fs::write(p.join("docs/guide.md"), "# g").unwrap();
        std::fs::write(p.join("docs/deep/deeper/far.txt"), "far").unwrap();
        d
    }

    /// A file argument is ranked by what it asks for: the extension it names, or the kind of
    /// document its words name (`budget.xlsx` before a JSON file for "the .xlsx file").
    #[test]
    fn one_file_of_each_kind_before_a_second_of_any_when_the_words_say_nothing() {
        let d = tempfile::tempdir().unwrap();
        for f in ["a.txt", "b.txt", "c.txt", "d.json", "e.docx"] {
            std::fs::write(d.path().join(f), "x").unwrap();
        }
        let paths = Paths::scan(d.path(), &[]);
        let h = path_hint("filename", "", "insert_header", "Insert a header").unwrap();
        let order: Vec<String> = paths
            .for_hint("insert_header", &h)
            .into_iter()
            .map(|e| e.path)
            .filter(|p| p.contains('.') && p != ".")
            .collect();
        let first_three: Vec<&str> = order.iter().take(3).map(String::as_str).collect();
        assert!(first_three.contains(&"e.docx") && first_three.contains(&"d.json"), "{order:?}");
        // Words that name a kind still decide first.
        let h = path_hint("filename", "Path of the .docx document", "x", "").unwrap();
        assert_eq!(paths.for_hint("x", &h)[0].path, "e.docx");
    }

    #[test]
    fn files_of_the_asked_extension_or_kind_come_first() {
        let words = |t: &str| t.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect::<Vec<_>>();
        assert!(
            affinity(&words("Path of the .xlsx file"), "budget.xlsx")
                > affinity(&words("Path of the .xlsx file"), "a.json")
        );
        assert!(affinity(&words("the workbook to open"), "budget.xlsx") > 0);
        assert!(affinity(&words("the presentation"), "deck.pptx") > 0);
        assert!(affinity(&words("document to read"), "report.docx") > 0);
        assert_eq!(affinity(&words("document to read"), "budget.xlsx"), 0);
    }

    fn paths(es: &[Entry]) -> Vec<&str> {
        es.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn the_project_folder_is_listed_breadth_first_without_hidden_build_or_own_files() {
        let d = project();
        let p = Paths::scan(d.path(), &[]);
        assert_eq!(paths(&p.entries), [".", "docs", "notes.txt", "pic.png", "docs/deep", "docs/guide.md"]);
        assert!(p.entries.iter().all(|e| e.relative));
        assert_eq!(p.entries[0].origin, Source::Roots);
    }

    #[test]
    fn command_line_paths_come_first_and_values_from_the_environment_never() {
        let d = project();
        let outside = tempfile::tempdir().unwrap();
        let out = outside.path().display().to_string();
        let args = vec![
            ("-y".to_string(), "-y".to_string()),
            ("@scope/pkg@1.0.0".to_string(), "@scope/pkg@1.0.0".to_string()),
            ("--root=docs".to_string(), "--root=docs".to_string()),
            (out.clone(), out.clone()),
            ("notes.txt".to_string(), "${NOTES}".to_string()),
        ];
        let p = Paths::scan(d.path(), &args);
        assert_eq!(&paths(&p.entries)[..3], ["docs", out.as_str(), "."]);
        assert_eq!(p.entries[0].origin, Source::CommandLine);
        assert!(p.entries[0].relative && !p.entries[1].relative);
        assert_eq!(p.entries.iter().filter(|e| e.path == "notes.txt").count(), 1, "listed once, from the folder");
        assert_eq!(p.entries.iter().find(|e| e.path == "notes.txt").unwrap().origin, Source::ProjectFolder);
    }

    #[test]
    fn candidates_follow_the_kind_the_words_name() {
        let d = project();
        let p = Paths::scan(d.path(), &[]);
        let files = p.for_hint("read_text_file", &path_hint("path", "", "read_text_file", "").unwrap());
        // Text files first for a tool that reads text; then two folders; then the rest.
        assert_eq!(paths(&files), ["notes.txt", "docs/guide.md", ".", "docs", "pic.png", "docs/deep"]);
        let media =
            p.for_hint("read_media_file", &path_hint("path", "", "read_media_file", "Image and audio").unwrap());
        assert_eq!(media[0].path, "pic.png");
        let dirs = p.for_hint("git_status", &path_hint("repo_path", "", "git_status", "").unwrap());
        assert_eq!(&paths(&dirs)[..4], [".", "docs", "notes.txt", "pic.png"]);
        let new = p.for_hint("write_file", &path_hint("path", "", "write_file", "").unwrap());
        assert_eq!(new[0].path, "mcp-pin-probe-write_file.txt");
        let new_dir = p.for_hint("create directory!", &path_hint("path", "", "create_directory", "").unwrap());
        assert_eq!((new_dir[0].path.as_str(), new_dir[0].dir), ("mcp-pin-probe-create-directory-", true));
        // The project has an image: no sample image.
        assert!(media.iter().all(|e| e.origin != Source::Sample), "{media:?}");
        // A new file of the type the words name: `export_csv` writes a CSV.
        let csv = p.for_hint("export_csv", &path_hint("csv_path", "", "export_csv", "").unwrap());
        assert_eq!(csv[0].path, "mcp-pin-probe-export_csv.csv");
    }

    #[test]
    fn relative_paths_only_inside_the_folder() {
        let d = project();
        assert_eq!(relative_to(d.path(), &d.path().join("docs/../notes.txt")).as_deref(), Some("notes.txt"));
        assert_eq!(relative_to(d.path(), d.path()).as_deref(), Some("."));
        assert_eq!(relative_to(d.path(), Path::new("/")), None);
    }

    /// A file of a kind the words name and the project has none of: the sample the sandbox's
    /// copy holds, after a new path and before the project's entries; and when a rejection names
    /// the extension.
    #[test]
    fn a_sample_stands_for_a_kind_of_file_the_project_lacks() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("sales.xlsx"), "x").unwrap();
        let p = Paths::scan(d.path(), &[]);
        let image = p.for_hint("insert_image", &path_hint("image_path", "", "insert_image", "").unwrap());
        assert_eq!((image[0].path.as_str(), image[0].origin), ("mcp-pin-sample.png", Source::Sample), "{image:?}");
        let book = p.for_hint("read_sheet", &path_hint("path", "", "read_sheet", "").unwrap());
        assert!(book.iter().all(|e| e.origin != Source::Sample), "{book:?}");
        let named = p.files_with(&["jpg".to_string(), "png".to_string()]);
        assert_eq!(named.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["mcp-pin-sample.png"]);
        assert!(p.files_with(&["pdf".to_string()]).is_empty());
    }
}
