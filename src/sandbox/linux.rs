//! Linux confinement, applied by the helper in the forked child just before `exec` (never in
//! mcp-pin's threaded process: Landlock and seccomp restrict the calling thread and what it
//! starts). Unprivileged throughout: `no_new_privs`, a seccomp filter (`seccompiler`) and Landlock
//! (`landlock`); no user namespace, no `sudo`, no sysctl.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// The capabilities a server never keeps, even one started by root: `CAP_SYS_PTRACE`,
/// `CAP_SYS_ADMIN`, `CAP_PERFMON` (linux/capability.h), each of which reads another process's
/// environment.
const BOUNDARY_CAPS: [libc::c_ulong; 3] = [19, 21, 38];

/// The Landlock ABI the full sandbox needs: filesystem with `refer` and `truncate`, TCP, and the
/// signal and abstract-UNIX-socket scopes (Linux 6.12).
pub const SANDBOX_ABI: i32 = 6;

/// The Landlock ABI of the running kernel (0: none, or disabled at boot).
pub fn landlock_abi() -> i32 {
    // SAFETY: the documented version query (NULL attributes, size 0, the VERSION flag).
    let v = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<libc::c_void>(), 0usize, 1u32) };
    if v < 0 {
        0
    } else {
        v as i32
    }
}

fn seccomp_arch() -> Option<TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Some(TargetArch::riscv64)
    } else {
        None
    }
}

/// Whether the running kernel has everything the full sandbox needs, or what it lacks.
pub fn sandbox_available() -> Result<(), String> {
    let abi = landlock_abi();
    if abi < SANDBOX_ABI {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let have = if abi == 0 { "no Landlock".to_string() } else { format!("Landlock ABI {abi}") };
        return Err(format!(
            "this kernel ({}) has {have}; the sandbox needs Landlock ABI {SANDBOX_ABI} (Linux 6.12) to keep a server from writing outside its scratch folder and from signalling other processes",
            release.trim()
        ));
    }
    if seccomp_arch().is_none() {
        return Err(format!("mcp-pin has no seccomp filter for {}", std::env::consts::ARCH));
    }
    // SAFETY: a query with integer arguments.
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err("this kernel has no seccomp filters".into());
    }
    Ok(())
}

fn no_new_privs() -> Result<(), String> {
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("PR_SET_NO_NEW_PRIVS: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// The process boundary for every stdio server: none of [`BOUNDARY_CAPS`], `no_new_privs` and a
/// Landlock domain that restricts nothing but crossing it. Inside any Landlock domain a process cannot ptrace, read
/// `/proc/PID/environ` or `/proc/PID/mem` of, or `process_vm_readv` a process outside it, root
/// included; with ABI 6 it cannot signal one either. Best effort: what the kernel has.
/// Returns what was applied, for the record.
pub fn confine_session() -> Result<&'static str, String> {
    // Root reads /proc/PID/environ of any process, an undumpable one and one in another Landlock
    // domain included, with any of CAP_SYS_PTRACE, CAP_SYS_ADMIN or CAP_PERFMON (seen on Linux
    // 6.18: such a read passes where a ptrace attach does not). Gone from the bounding set, they
    // are gone after exec. SAFETY: prctl with integer arguments (fails harmlessly, and there is
    // nothing to drop, without CAP_SETPCAP).
    for cap in BOUNDARY_CAPS {
        unsafe {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
    }
    no_new_privs()?;
    let abi = landlock_abi();
    if abi < 2 {
        return Ok("no_new_privs (no Landlock domain: this kernel has none, or only ABI 1)");
    }
    // A domain that handles every file access and grants every one of them everywhere: the
    // kernel applies its ptrace rules only to domains that handle some access (a domain of
    // scopes alone does not stop a read of /proc/PID/environ), and ABI 2 is needed for
    // `refer` (under ABI 1 a rename across folders would fail). Signals are scoped from ABI 6.
    let all = AccessFs::from_all(ABI::V6);
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort).handle_access(all);
    if abi >= 6 {
        ruleset = ruleset.and_then(|r| r.scope(Scope::Signal));
    }
    let status = ruleset
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], all)))
        .and_then(|r| r.restrict_self())
        .map_err(|e| format!("Landlock: {e}"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("Landlock: the domain was not enforced".into());
    }
    Ok(if abi >= 6 { "no_new_privs, Landlock domain with signal scoping" } else { "no_new_privs, Landlock domain" })
}

/// The full sandbox: no capability, `no_new_privs`, Landlock (read everywhere but the files and
/// folders in `hidden` ([`read_grants`]), yet under `open` but for what of `hidden` is inside it
/// ([`open_grants`]: the real home folder is hidden, its toolchains open), write only under `write` and to `/dev/null`, no TCP,
/// signals and abstract UNIX sockets scoped to the sandbox, all of it fully enforced or an
/// error), then the seccomp filters ([`seccomp_program`], [`metadata_program`],
/// [`ioctl_program`]).
pub fn confine_sandbox(write: &Path, hidden: &[PathBuf], open: &[PathBuf]) -> Result<(), String> {
    drop_capabilities();
    no_new_privs()?;
    let abi = ABI::V6;
    let mut grants = read_grants(hidden);
    grants.extend(open_grants(open, hidden));
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        // Folder listings everywhere (a hidden file's name is no secret; a folder that cannot be
        // listed breaks more than it protects), file contents and execution where granted.
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::ReadDir)))
        .and_then(|r| r.add_rules(path_beneath_rules(&grants, AccessFs::ReadFile | AccessFs::Execute)))
        .and_then(|r| r.add_rules(path_beneath_rules([write, Path::new("/dev/null")], AccessFs::from_all(abi))))
        .and_then(|r| r.restrict_self())
        .map_err(|e| format!("Landlock: {e}"))?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!("Landlock enforced the sandbox only partly ({:?})", status.ruleset));
    }
    // Three filters, each with its own answer; the kernel runs them all (a refusal wins).
    for program in [seccomp_program()?, metadata_program()?, ioctl_program()?] {
        seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))?;
    }
    Ok(())
}

/// Where reads are granted so that everything is readable but `hidden` (absolute, canonical
/// paths): Landlock grants, it cannot take away, so `/` is split along the way down to each hidden
/// path, granting every sibling on the way and not the path itself. A symlink among the siblings
/// is not granted (a read through it is judged where it leads). A folder that cannot be listed
/// stays granted whole (its hidden path is then readable: best effort, never a broken sandbox).
pub fn read_grants(hidden: &[PathBuf]) -> Vec<PathBuf> {
    read_grants_from(&[PathBuf::from("/")], hidden)
}

/// Where reads are granted so that what is under `open` (absolute, canonical paths, each lying
/// inside something hidden: the home folder's toolchains inside the home folder) is readable but
/// for whatever of `hidden` lies inside it ([`read_grants`] from those roots): a path both hidden
/// and open is hidden.
pub fn open_grants(open: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let roots: Vec<PathBuf> = open
        .iter()
        .filter(|o| o.is_absolute() && o.exists())
        .filter(|o| !open.iter().any(|other| other != *o && o.starts_with(other)))
        .cloned()
        .collect();
    if roots.is_empty() {
        return vec![];
    }
    read_grants_from(&roots, hidden)
}

/// [`read_grants`] starting from `roots` (which do not overlap) instead of `/`.
fn read_grants_from(roots: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut grants: BTreeSet<PathBuf> = roots.iter().cloned().collect();
    for h in hidden {
        if !h.is_absolute() || h.parent().is_none() {
            continue;
        }
        // The one grant that covers it (grants never overlap), if any still does.
        let Some(cover) = grants.iter().find(|g| h.starts_with(g)).cloned() else { continue };
        let mut added = vec![];
        let mut dir = cover.clone();
        let mut ok = true;
        for part in h.strip_prefix(&cover).unwrap_or(h).components() {
            let next = dir.join(part);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                ok = false;
                break;
            };
            for e in entries.flatten() {
                if e.path() != next && e.file_type().is_ok_and(|t| !t.is_symlink()) {
                    added.push(e.path());
                }
            }
            dir = next;
        }
        if ok {
            grants.remove(&cover);
            grants.extend(added);
        }
    }
    grants.into_iter().collect()
}

/// Drop every capability for good (a server started by root is root without privileges):
/// the bounding set, the ambient set, then the permitted, effective and inheritable sets.
/// Nothing to drop for an ordinary user (the calls fail, harmlessly).
fn drop_capabilities() {
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<libc::c_ulong>().ok())
        .unwrap_or(63);
    // SAFETY: prctl and capset with integer arguments and a zeroed, correctly sized struct.
    unsafe {
        for cap in 0..=last {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        let mut header = Header { version: 0x2008_0522, pid: 0 }; // _LINUX_CAPABILITY_VERSION_3
        let data =
            [Data { effective: 0, permitted: 0, inheritable: 0 }, Data { effective: 0, permitted: 0, inheritable: 0 }];
        libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr());
    }
}

/// The seccomp filter of the sandbox, each listed call failing with `EPERM`:
/// - `socket` and `socketpair` of any family but `AF_UNIX` (TCP and UDP alike, raw, netlink,
///   packet, vsock, ...);
/// - `connect` of any socket (the only sockets left are UNIX ones, and a connect would reach a
///   daemon outside the sandbox through its socket file: a container engine, the session bus),
///   and `sendto` with a destination address;
/// - `io_uring_setup`, `io_uring_enter`, `io_uring_register` (it makes sockets and opens files
///   without the calls above);
/// - `ptrace`, `process_vm_readv`, `process_vm_writev` (Landlock refuses them across the
///   sandbox already; refused inside it too).
///
/// - every call of SysV IPC, POSIX message queues and the kernel keyring ([`ipc_calls`]).
///
/// On x86_64 every x32 system call (numbers with bit 30 set) fails too: the same calls under
/// other numbers.
pub fn seccomp_program() -> Result<BpfProgram, String> {
    let arch = seccomp_arch().ok_or_else(|| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let err = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let not_unix = || SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, libc::AF_UNIX as u64);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![SeccompRule::new(vec![not_unix().map_err(err)?]).map_err(err)?]);
    rules.insert(libc::SYS_socketpair, vec![SeccompRule::new(vec![not_unix().map_err(err)?]).map_err(err)?]);
    let has_destination = SeccompCondition::new(4, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0).map_err(err)?;
    rules.insert(libc::SYS_sendto, vec![SeccompRule::new(vec![has_destination]).map_err(err)?]);
    for nr in [
        libc::SYS_connect,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
    ] {
        rules.insert(nr, vec![]);
    }
    for nr in ipc_calls() {
        rules.insert(nr, vec![]);
    }
    let filter =
        SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch).map_err(err)?;
    let program: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))?;
    Ok(with_x32_refused(program))
}

/// The calls that make or reach kernel objects which outlive a process and are named by a key
/// or an id any process of the user can use: SysV shared memory, message queues and semaphores
/// (`shmget` on a key, or `shmat` on a guessed id), POSIX message queues (`mq_open`: a name in
/// the `mqueue` file system, beyond Landlock's reach), and keys in the user and session keyrings
/// (`add_key`, `request_key`, `keyctl`). Without an IPC namespace (it takes privileges or a user
/// namespace, which the sandbox does without), whatever a call made would outlive the session
/// and be read by a process outside it; so every one of them is refused (`EPERM`). POSIX shared
/// memory and semaphores are files under `/dev/shm`, which Landlock keeps unwritable.
pub fn ipc_calls() -> Vec<i64> {
    vec![
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmctl,
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semtimedop,
        libc::SYS_semctl,
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
        libc::SYS_mq_timedsend,
        libc::SYS_mq_timedreceive,
        libc::SYS_mq_notify,
        libc::SYS_mq_getsetattr,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
    ]
}

/// Every system call that changes a file's metadata (mode, owner, times, extended attributes)
/// by path or by descriptor. Landlock does not handle them, and the process owns every file of
/// its user: through a link in the scratch copy, or simply by the real path (reads are allowed
/// everywhere), it could change the real project's `.env` from 600 to 666, a build output's
/// times or plant an attribute. A filter sees numbers, not paths, so it cannot tell the scratch
/// copy from the real files: every one of these calls is refused everywhere.
pub fn metadata_calls() -> Vec<i64> {
    // Numbers from 424 on are the same on every architecture.
    const FCHMODAT2: i64 = 452;
    const SETXATTRAT: i64 = 463;
    const REMOVEXATTRAT: i64 = 466;
    const FILE_SETATTR: i64 = 469;
    let mut calls = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        FCHMODAT2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SETXATTRAT,
        REMOVEXATTRAT,
        FILE_SETATTR,
    ];
    // The old path calls exist on x86_64 only (aarch64 and riscv64 have the `at` ones alone).
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ]);
    calls
}

/// The filter that answers every [`metadata_calls`] call with success **without making it**
/// (`SECCOMP_RET_ERRNO` with errno 0): the real project keeps its metadata, and a server that
/// sets a mode or times on a file it just wrote in the scratch copy carries on as it would
/// outside (Node's `fs.copyFile` fails on a refused `fchmod`, GitPython sets 0444 on each object
/// it writes, Python's `shutil.copy2` copies times and mode), its files keeping the mode they
/// were created with.
pub fn metadata_program() -> Result<BpfProgram, String> {
    let arch = seccomp_arch().ok_or_else(|| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let rules: BTreeMap<i64, Vec<SeccompRule>> = metadata_calls().into_iter().map(|nr| (nr, vec![])).collect();
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(0), arch)
        .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
}

/// The `ioctl` type bytes a sandboxed process may use: `'T'` (0x54: terminals and the generic
/// descriptor calls `FIONBIO`, `FIOCLEX`, `FIONREAD`...) and 0 (`FIGETBSZ`).
const IOCTL_TYPES: [u32; 2] = [0x54, 0x00];

/// The filter that answers every other `ioctl` with `ENOTTY` (what a file that has no such
/// call answers, which programs take in their stride). The file-system ones change a file
/// through a descriptor opened read-only, beyond Landlock's reach: its flags (`FS_IOC_SETFLAGS`:
/// append-only, no-dump...), `FS_IOC_FSSETXATTR`, `FS_IOC_SETVERSION`, fs-verity (which makes a
/// file read-only for good), an encryption policy on an empty folder, a Btrfs subvolume made
/// inside a folder of the real project. Device ioctls are Landlock's already (`IoctlDev`).
pub fn ioctl_program() -> Result<BpfProgram, String> {
    use seccompiler::sock_filter;
    seccomp_arch().ok_or_else(|| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const AND_K: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    // seccomp_data: nr at 0, args[1] at 24 (its low half: every architecture here is little
    // endian; the kernel reads the request as 32 bits). Another architecture's calls never get
    // here: the first filter kills them.
    Ok(vec![
        op(LD_W_ABS, 0, 0, 0),
        op(JEQ_K, 0, 5, libc::SYS_ioctl as u32), // not ioctl: allow
        op(LD_W_ABS, 0, 0, 24),
        op(AND_K, 0, 0, 0xff00),
        op(JEQ_K, 2, 0, IOCTL_TYPES[0] << 8),
        op(JEQ_K, 1, 0, IOCTL_TYPES[1] << 8),
        op(RET_K, 0, 0, RET_ERRNO | libc::ENOTTY as u32),
        op(RET_K, 0, 0, RET_ALLOW),
    ])
}

/// x86_64 only: before the filter, refuse every system call numbered with the x32 bit.
fn with_x32_refused(program: BpfProgram) -> BpfProgram {
    if !cfg!(target_arch = "x86_64") {
        return program;
    }
    use seccompiler::sock_filter;
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let mut out = vec![
        sock_filter { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: 0 }, // seccomp_data.nr
        sock_filter { code: BPF_JGE_K, jt: 0, jf: 1, k: 0x4000_0000 },
        sock_filter { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | libc::EPERM as u32 },
    ];
    out.extend(program);
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn the_filter_compiles_for_this_machine() {
        let p = super::seccomp_program().expect("compiles");
        assert!(p.len() > 10);
        assert!(super::metadata_program().expect("compiles").len() > 10);
        assert_eq!(super::ioctl_program().expect("compiles").len(), 8);
    }

    #[test]
    fn reads_are_granted_around_what_is_hidden() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::create_dir_all(root.join("home/.config/gh")).unwrap();
        std::fs::create_dir_all(root.join("home/.config/other")).unwrap();
        std::fs::write(root.join("home/.bashrc"), "").unwrap();
        std::fs::create_dir_all(root.join("proj")).unwrap();
        std::fs::write(root.join("proj/.env"), "").unwrap();
        std::fs::write(root.join("proj/a.txt"), "").unwrap();
        std::os::unix::fs::symlink(root.join("home/.ssh"), root.join("home/ssh-link")).unwrap();
        let hidden = [root.join("home/.ssh"), root.join("home/.config/gh"), root.join("proj/.env")];
        let grants = super::read_grants(&hidden);
        let covered = |p: &std::path::Path| grants.iter().any(|g| p.starts_with(g));
        for h in &hidden {
            assert!(!covered(h), "{} is readable: {grants:?}", h.display());
        }
        for p in ["home/.bashrc", "home/.config/other", "proj/a.txt"] {
            assert!(covered(&root.join(p)), "{p} is not readable: {grants:?}");
        }
        assert!(covered(&PathBuf::from("/usr/bin")), "the rest of the machine stays readable");
        assert!(!grants.contains(&root.join("home/ssh-link")), "a symlink is judged where it leads");
        // The home folder hidden whole, its caches open but for a named store inside one.
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".npm/keys")).unwrap();
        std::fs::create_dir_all(home.join(".npm/_cacache")).unwrap();
        let hidden = [home.clone(), home.join(".npm/keys"), root.join("proj/.env")];
        let mut grants = super::read_grants(&hidden);
        grants.extend(super::open_grants(&[home.join(".npm"), home.join(".npm/_cacache"), home.join("gone")], &hidden));
        let covered = |p: &std::path::Path| grants.iter().any(|g| p.starts_with(g));
        assert!(covered(&home.join(".npm/_cacache/x")) && covered(&root.join("proj/a.txt")), "{grants:?}");
        for h in [home.join(".bashrc"), home.join(".config/other"), home.join(".npm/keys"), root.join("proj/.env")] {
            assert!(!covered(&h), "{} is readable: {grants:?}", h.display());
        }
        assert!(super::open_grants(&[home.join(".ssh")], &[home.join(".ssh")]).is_empty(), "hidden wins");
        // Nothing overlaps, and nothing hidden twice breaks it.
        let again = super::read_grants(&[hidden[0].clone(), hidden[0].clone()]);
        assert!(!again.iter().any(|g| hidden[0].starts_with(g)));
    }
}
