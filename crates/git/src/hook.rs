//! Installing the git hooks. A hook that is already there is never lost: it is kept as
//! `<hook>.legacy`, still runs first (chained), and `hook uninstall` puts it back. Our
//! script is recognised by its marker line, so installing twice changes nothing.

use git2::Repository;
use privacy_audit_engine::error::{Error, Result};
use std::path::{Path, PathBuf};

const MARKER: &str = "# privacy-audit hook: managed by `privacy-audit hook install`";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    PreCommit,
    PrePush,
}

impl HookKind {
    pub fn file_name(self) -> &'static str {
        match self {
            HookKind::PreCommit => "pre-commit",
            HookKind::PrePush => "pre-push",
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    Fresh(PathBuf),
    /// An existing hook was kept at this path and runs before ours.
    Chained {
        hook: PathBuf,
        legacy: PathBuf,
    },
    /// Ours was already there (its binary path refreshed if it had changed).
    AlreadyInstalled(PathBuf),
}

#[derive(Debug, PartialEq, Eq)]
pub enum Uninstalled {
    Removed(PathBuf),
    /// Ours was removed and the hook it had replaced is back.
    Restored(PathBuf),
    /// The hook there is not ours; it was left alone.
    NotOurs(PathBuf),
    NotInstalled(PathBuf),
}

/// `core.hooksPath` when set (relative to the worktree, as git reads it), else the
/// common git dir's `hooks` (linked worktrees share the main repository's hooks).
pub fn hooks_dir(repo: &Repository) -> Result<PathBuf> {
    let config = repo.config().map_err(crate::git_err)?;
    match config.get_path("core.hooksPath") {
        Ok(path) if path.is_absolute() => Ok(path),
        Ok(path) => Ok(repo.workdir().unwrap_or_else(|| repo.path()).join(path)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(repo.commondir().join("hooks")),
        // A value libgit2 cannot expand (`~user/`, `%(prefix)/`): installing into the
        // default folder would put the hook where git never looks.
        Err(e) => Err(Error::Usage(format!(
            "core.hooksPath cannot be resolved ({}); install into the folder it names with \
             --repo and a plain path, or unset it",
            e.message()
        ))),
    }
}

fn is_ours(script: &[u8]) -> bool {
    String::from_utf8_lossy(script).lines().any(|l| l == MARKER)
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script git runs. It calls the binary by absolute path and fails closed (exit 2,
/// commit blocked) with instructions when that binary has gone.
pub fn script(kind: HookKind, exe: &Path) -> String {
    let name = kind.file_name();
    let exe = sh_quote(&exe.to_string_lossy());
    let run = match kind {
        HookKind::PreCommit => {
            "if [ -x \"$legacy\" ]; then\n    \"$legacy\" \"$@\" || exit $?\nfi\n\
             exec \"$PRIVACY_AUDIT\" hook run\n"
        }
        // git sends the pushed refs on stdin; both hooks need to read them.
        HookKind::PrePush => {
            "input=$(cat)\n\
             if [ -x \"$legacy\" ]; then\n    printf '%s\\n' \"$input\" | \"$legacy\" \"$@\" || exit $?\nfi\n\
             printf '%s\\n' \"$input\" | \"$PRIVACY_AUDIT\" hook run --pre-push -- \"$@\"\n"
        }
    };
    format!(
        "#!/bin/sh\n\
         {MARKER}\n\
         # `privacy-audit hook uninstall` removes it and restores any hook it replaced.\n\
         PRIVACY_AUDIT={exe}\n\
         legacy=\"$(dirname \"$0\")/{name}.legacy\"\n\
         if [ ! -x \"$PRIVACY_AUDIT\" ]; then\n    \
             echo \"privacy-audit: $PRIVACY_AUDIT is missing, so this {name} is blocked (the gate fails closed).\" >&2\n    \
             echo \"privacy-audit: reinstall it and run 'privacy-audit hook install', or delete $0.\" >&2\n    \
             exit 2\n\
         fi\n\
         {run}"
    )
}

pub fn install(repo: &Repository, kind: HookKind, exe: &Path) -> Result<Installed> {
    let dir = hooks_dir(repo)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let hook = dir.join(kind.file_name());
    let legacy = dir.join(format!("{}.legacy", kind.file_name()));
    let script = script(kind, exe);
    let outcome = match std::fs::read(&hook) {
        Ok(existing) if is_ours(&existing) => {
            if existing != script.as_bytes() {
                write_executable(&hook, &script)?;
            }
            return Ok(Installed::AlreadyInstalled(hook));
        }
        Ok(_) => {
            if legacy.exists() {
                return Err(Error::Usage(format!(
                    "{} is not ours and {} exists too: move one of them away first",
                    hook.display(),
                    legacy.display()
                )));
            }
            std::fs::rename(&hook, &legacy).map_err(|e| Error::io(&hook, e))?;
            Installed::Chained {
                hook: hook.clone(),
                legacy,
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Installed::Fresh(hook.clone()),
        Err(e) => return Err(Error::io(&hook, e)),
    };
    write_executable(&hook, &script)?;
    Ok(outcome)
}

pub fn uninstall(repo: &Repository, kind: HookKind) -> Result<Uninstalled> {
    let dir = hooks_dir(repo)?;
    let hook = dir.join(kind.file_name());
    let legacy = dir.join(format!("{}.legacy", kind.file_name()));
    match std::fs::read(&hook) {
        Ok(existing) if is_ours(&existing) => {
            if legacy.exists() {
                std::fs::rename(&legacy, &hook).map_err(|e| Error::io(&legacy, e))?;
                Ok(Uninstalled::Restored(hook))
            } else {
                std::fs::remove_file(&hook).map_err(|e| Error::io(&hook, e))?;
                Ok(Uninstalled::Removed(hook))
            }
        }
        Ok(_) => Ok(Uninstalled::NotOurs(hook)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Uninstalled::NotInstalled(hook)),
        Err(e) => Err(Error::io(&hook, e)),
    }
}

/// Written beside the hook and renamed over it, so git never runs half a script.
fn write_executable(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io(path, e))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}
