//! Which blobs a git event adds: the staged index (pre-commit), the commits of a range
//! (`scan-git`, pre-push, pre-receive). Deleted paths and submodules are never blobs to
//! scan; each blob is listed once, under the first path and commit that carried it.

use super::index::{IndexEntry, ParsedIndex};
use git2::{Delta, DiffOptions, Oid, Repository, Sort, Tree};
use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::guard::path_text;
use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// One blob to judge.
#[derive(Debug, Clone)]
pub struct BlobRef {
    /// Repository-relative, as git stores it: bytes, never rewritten (a `\\` or a
    /// byte that is not UTF-8 is part of the name).
    pub path: Vec<u8>,
    pub oid: Oid,
    /// The content of a symbolic link blob is its target path.
    pub is_link: bool,
    /// A submodule entry (gitlink): no content here, but its path is a name like any
    /// other and is judged as one.
    pub gitlink: bool,
    /// The commit that added it (`None` for the index).
    pub commit: Option<Oid>,
}

fn head_tree(repo: &Repository) -> Result<Option<Tree<'_>>> {
    match repo.head() {
        Ok(head) => Ok(Some(head.peel_to_tree().map_err(crate::git_err)?)),
        // An initial commit: nothing is committed yet, everything staged is new.
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(crate::git_err(e)),
    }
}

fn wanted(status: Delta) -> bool {
    matches!(
        status,
        Delta::Added | Delta::Modified | Delta::Renamed | Delta::Copied | Delta::Typechange
    )
}

/// `Some(is_link)` for a file or symbolic link; `None` for submodules and trees. Read
/// from the raw mode: git2's `DiffFile::mode()` panics on the odd modes (`100600`) that
/// old tools wrote and git still accepts.
fn blob_kind(mode: u32) -> Option<bool> {
    match mode & 0o170_000 {
        0o100_000 => Some(false),
        0o120_000 => Some(true),
        _ => None,
    }
}

fn is_gitlink(mode: u32) -> bool {
    mode & 0o170_000 == 0o160_000
}

impl BlobRef {
    /// The path as reports spell it (see [`path_text`]).
    pub fn shown(&self) -> String {
        path_text(&self.path)
    }
}

/// A git path (bytes) as the `Path` libgit2's lookups take, byte for byte.
pub fn repo_path(bytes: &[u8]) -> &Path {
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}

/// The new side of a delta git says was added or changed: its path bytes, and its mode
/// read from `tree` (or the index) by those exact bytes. A delta whose blob cannot be
/// found again is an error, never a silent skip.
fn delta_path(delta: &git2::DiffDelta<'_>) -> Result<Vec<u8>> {
    delta
        .new_file()
        .path_bytes()
        .map(<[u8]>::to_vec)
        .ok_or_else(|| {
            Error::Git(format!(
                "a change to blob {} has no path",
                delta.new_file().id()
            ))
        })
}

/// What the index adds relative to `HEAD`. The index is the one git points the hook at
/// (`GIT_INDEX_FILE` under `git commit -a` / `git commit <path>`), so a file edited
/// again after `git add` is judged by its staged version. A merge in progress is judged
/// by what it stages. Path, id and mode come from each index entry itself; only
/// `HEAD`'s side is looked up, by the entry's exact path bytes.
pub fn staged(repo: &Repository, index: &git2::Index) -> Result<Vec<BlobRef>> {
    let tree = head_tree(repo)?;
    let mut out = Vec::new();
    for e in index.iter() {
        let stage = (e.flags >> 12) & 0x3;
        if stage != 0 || e.flags_extended & 0x2000 != 0 {
            continue; // conflict stages cannot be committed; intent-to-add has no content
        }
        let gitlink = is_gitlink(e.mode);
        let Some(is_link) = blob_kind(e.mode).or(gitlink.then_some(false)) else {
            continue;
        };
        let unchanged = tree
            .as_ref()
            .and_then(|t| t.get_path(repo_path(&e.path)).ok())
            .is_some_and(|h| h.id() == e.id && h.filemode() as u32 == e.mode);
        if !unchanged {
            out.push(BlobRef {
                path: e.path,
                oid: e.id,
                is_link,
                gitlink,
                commit: None,
            });
        }
    }
    Ok(out)
}

/// [`staged`] without libgit2's index: entries under folders whose cache-tree id equals
/// `HEAD`'s are unchanged as a whole and never looked at; the rest are compared with
/// `HEAD`'s tree of their folder, read once per folder.
pub fn staged_fast(repo: &Repository, index: &ParsedIndex) -> Result<Vec<BlobRef>> {
    let blob = |e: &IndexEntry| BlobRef {
        path: index.path(e).to_vec(),
        oid: e.oid,
        is_link: e.is_link(),
        gitlink: e.is_gitlink(),
        commit: None,
    };
    let Some(head) = head_tree(repo)? else {
        return Ok(index.entries.iter().map(blob).collect());
    };
    let cached: HashMap<&[u8], Oid> = index
        .cache_tree
        .iter()
        .filter_map(|c| c.oid.map(|o| (c.path.as_slice(), o)))
        .collect();
    // HEAD's tree of each folder met so far (None: the folder is new).
    let mut trees: HashMap<Vec<u8>, Option<Tree<'_>>> = HashMap::new();
    let mut covered: HashMap<Vec<u8>, bool> = HashMap::new();
    let mut out = Vec::new();
    for e in &index.entries {
        let path = index.path(e);
        let (dir, name) = split_dir(path);
        if is_covered(dir, &cached, &head, &mut covered) {
            continue;
        }
        if !trees.contains_key(dir) {
            let tree = if dir.is_empty() {
                Some(head.clone())
            } else {
                head.get_path(repo_path(dir))
                    .ok()
                    .and_then(|t| t.to_object(repo).ok())
                    .and_then(|o| o.into_tree().ok())
            };
            trees.insert(dir.to_vec(), tree);
        }
        let unchanged = trees
            .get(dir)
            .and_then(Option::as_ref)
            .and_then(|t| t.get_name_bytes(name).map(|x| (x.id(), x.filemode())))
            == Some((e.oid, e.mode as i32));
        if !unchanged {
            out.push(blob(e));
        }
    }
    Ok(out)
}

/// `(folder, name)` of a path; the folder is empty at the root.
pub fn split_dir(path: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memrchr(b'/', path) {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (&[], path),
    }
}

/// Whether `dir` (or a folder above it) has a cache-tree id equal to `HEAD`'s.
fn is_covered(
    dir: &[u8],
    cached: &HashMap<&[u8], Oid>,
    head: &Tree<'_>,
    memo: &mut HashMap<Vec<u8>, bool>,
) -> bool {
    if let Some(&known) = memo.get(dir) {
        return known;
    }
    let parent_covered = match memchr::memrchr(b'/', dir) {
        Some(i) => is_covered(&dir[..i], cached, head, memo),
        None if dir.is_empty() => false,
        None => is_covered(b"", cached, head, memo),
    };
    let same = || {
        let Some(&oid) = cached.get(dir) else {
            return false;
        };
        if dir.is_empty() {
            return head.id() == oid;
        }
        head.get_path(repo_path(dir)).is_ok_and(|t| t.id() == oid)
    };
    let answer = parent_covered || same();
    memo.insert(dir.to_vec(), answer);
    answer
}

/// The commits to judge, oldest first.
pub enum Range<'a> {
    /// `A..B` (or a single revision: everything reachable from it).
    Spec(&'a str),
    /// Every commit reachable from any ref.
    All,
    /// Reachable from `include`, minus what is reachable from `exclude` commits and from
    /// the refs matching `exclude_globs` (pre-push and pre-receive).
    Push {
        include: Oid,
        exclude: Vec<Oid>,
        exclude_globs: Vec<String>,
    },
}

pub fn commits(repo: &Repository, range: &Range<'_>) -> Result<Vec<Oid>> {
    let mut walk = repo.revwalk().map_err(crate::git_err)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)
        .map_err(crate::git_err)?;
    match range {
        Range::Spec(spec) if spec.contains("..") => walk
            .push_range(spec)
            .map_err(|e| Error::Usage(format!("range `{spec}`: {}", e.message())))?,
        Range::Spec(spec) => {
            let obj = repo
                .revparse_single(spec)
                .map_err(|e| Error::Usage(format!("revision `{spec}`: {}", e.message())))?;
            walk.push(obj.peel_to_commit().map_err(crate::git_err)?.id())
                .map_err(crate::git_err)?;
        }
        Range::All => {
            walk.push_glob("*").map_err(crate::git_err)?;
            if repo.head().is_ok() {
                walk.push_head().map_err(crate::git_err)?;
            }
        }
        Range::Push {
            include,
            exclude,
            exclude_globs,
        } => {
            walk.push(*include).map_err(crate::git_err)?;
            for oid in exclude {
                // A remote tip we do not have (someone else pushed) cannot be hidden;
                // the remote-tracking refs still bound the walk.
                if repo.find_commit(*oid).is_ok() {
                    walk.hide(*oid).map_err(crate::git_err)?;
                }
            }
            for glob in exclude_globs {
                walk.hide_glob(glob).map_err(crate::git_err)?;
            }
        }
    }
    walk.collect::<std::result::Result<Vec<_>, _>>()
        .map_err(crate::git_err)
}

/// The blobs the commits add: each commit against its first parent (the empty tree for
/// a root commit). A merge adds only what none of its parents had — its conflict
/// resolutions — since the merged commits are judged on their own.
pub fn added_by(repo: &Repository, commits: &[Oid]) -> Result<Vec<BlobRef>> {
    let mut seen: HashSet<(Oid, Vec<u8>)> = HashSet::new();
    let mut out = Vec::new();
    let mut opts = DiffOptions::new();
    // Submodules are not ignored: their entries' paths are names to judge.
    opts.include_typechange(true).ignore_submodules(false);
    for &id in commits {
        let commit = repo.find_commit(id).map_err(crate::git_err)?;
        let tree = commit.tree().map_err(crate::git_err)?;
        let parents: Vec<Tree<'_>> = commit
            .parents()
            .map(|p| p.tree())
            .collect::<std::result::Result<_, _>>()
            .map_err(crate::git_err)?;
        let diff = repo
            .diff_tree_to_tree(parents.first(), Some(&tree), Some(&mut opts))
            .map_err(crate::git_err)?;
        for delta in diff.deltas() {
            let new = delta.new_file();
            if !wanted(delta.status()) {
                continue;
            }
            let path = delta_path(&delta)?;
            // Once per blob *and path*: accepting a finding depends on its path, so
            // content allowed under `tests/` is judged again when copied to `data/`.
            if seen.contains(&(new.id(), path.clone())) {
                continue;
            }
            let entry = tree.get_path(repo_path(&path)).map_err(|e| {
                Error::Git(format!(
                    "commit {id} changes `{}`, which its tree does not hold: {}",
                    privacy_audit_engine::guard::guard(&path_text(&path)),
                    e.message()
                ))
            })?;
            let mode = u32::try_from(entry.filemode()).unwrap_or(0);
            let gitlink = is_gitlink(mode);
            let Some(is_link) = blob_kind(mode).or(gitlink.then_some(false)) else {
                continue;
            };
            let in_other_parent = parents.iter().skip(1).any(|p| {
                p.get_path(repo_path(&path))
                    .is_ok_and(|e| e.id() == new.id())
            });
            if in_other_parent {
                continue;
            }
            seen.insert((new.id(), path.clone()));
            out.push(BlobRef {
                path,
                oid: new.id(),
                is_link,
                gitlink,
                commit: Some(id),
            });
        }
    }
    Ok(out)
}

/// git's all-zero object id: a new ref (as the old value) or a deleted one (as the new).
pub fn is_zero(hex: &str) -> bool {
    !hex.is_empty() && hex.bytes().all(|b| b == b'0')
}

fn oid(hex: &str, what: &str) -> Result<Oid> {
    Oid::from_str(hex).map_err(|_| Error::Usage(format!("{what}: `{hex}` is not an object id")))
}

/// pre-push stdin: `<local ref> <local sha> <remote ref> <remote sha>` per ref pushed.
/// A new branch sends the commits no remote-tracking ref of `remote` has.
pub fn pre_push_ranges(stdin: &str, remote: &str) -> Result<Vec<Range<'static>>> {
    let mut out = Vec::new();
    for line in stdin.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [_local_ref, local, _remote_ref, remote_sha] = parts[..] else {
            return Err(Error::Usage(format!(
                "pre-push input line is not `<local ref> <sha> <remote ref> <sha>`: {line}"
            )));
        };
        if is_zero(local) {
            continue; // a deletion pushes no content
        }
        let mut exclude = Vec::new();
        if !is_zero(remote_sha) {
            exclude.push(oid(remote_sha, "pre-push")?);
        }
        out.push(Range::Push {
            include: oid(local, "pre-push")?,
            exclude,
            exclude_globs: vec![format!("refs/remotes/{remote}/*")],
        });
    }
    Ok(out)
}

/// pre-receive stdin: `<old> <new> <ref>`. The refs have not moved yet, so a new ref
/// brings the commits no existing branch or tag has.
pub fn pre_receive_ranges(stdin: &str) -> Result<Vec<Range<'static>>> {
    let mut out = Vec::new();
    for line in stdin.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [old, new, _name] = parts[..] else {
            return Err(Error::Usage(format!(
                "pre-receive input line is not `<old> <new> <ref>`: {line}"
            )));
        };
        if is_zero(new) {
            continue;
        }
        let (exclude, exclude_globs) = if is_zero(old) {
            (
                Vec::new(),
                vec!["refs/heads/*".into(), "refs/tags/*".into()],
            )
        } else {
            (vec![oid(old, "pre-receive")?], Vec::new())
        };
        out.push(Range::Push {
            include: oid(new, "pre-receive")?,
            exclude,
            exclude_globs,
        });
    }
    Ok(out)
}

/// The names of the refs a push moves: pre-push's local and remote refs, pre-receive's
/// ref. A deleted ref's name is judged too: it was on the server.
pub fn pushed_ref_names(stdin: &str, pre_push: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in stdin.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        match (pre_push, parts.as_slice()) {
            (true, [local, _, remote, _]) => {
                out.push((*local).to_string());
                out.push((*remote).to_string());
            }
            (false, [_, _, name]) => out.push((*name).to_string()),
            _ => {}
        }
    }
    out.retain(|n| n != "(delete)");
    out.sort();
    out.dedup();
    out
}

/// Annotated tags among `ids` (the new values of pushed refs), and the tags they point
/// to in turn: their messages are judged like commit messages.
pub fn tags_among(repo: &Repository, ids: &[Oid]) -> Vec<Oid> {
    let mut out = Vec::new();
    for &id in ids {
        let mut next = Some(id);
        while let Some(tag) = next.and_then(|i| repo.find_tag(i).ok()) {
            if out.contains(&tag.id()) {
                break;
            }
            out.push(tag.id());
            next = Some(tag.target_id());
        }
    }
    out
}

/// Every annotated tag in the repository.
pub fn all_tags(repo: &Repository) -> Result<Vec<Oid>> {
    let mut ids = Vec::new();
    repo.tag_foreach(|id, _| {
        ids.push(id);
        true
    })
    .map_err(crate::git_err)?;
    Ok(tags_among(repo, &ids))
}

/// The object ids a push sends as new ref values: the second field of a pre-push line
/// (`<local ref> <local sha> …`) and of a pre-receive line (`<old> <new> <ref>`) alike.
pub fn pushed_ids(stdin: &str) -> Vec<Oid> {
    stdin
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|h| !is_zero(h))
        .filter_map(|h| Oid::from_str(h).ok())
        .collect()
}

/// The commit a push starts from, whose config judges it: the remote's old tip of the
/// first ref updated when this repository has it, else the remote's default branch.
pub fn push_base(repo: &Repository, stdin: &str, remote: &str) -> Option<Oid> {
    let old = stdin
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3))
        .filter(|h| !is_zero(h))
        .filter_map(|h| Oid::from_str(h).ok())
        .find(|id| repo.find_commit(*id).is_ok());
    old.or_else(|| {
        repo.find_reference(&format!("refs/remotes/{remote}/HEAD"))
            .ok()?
            .peel_to_commit()
            .ok()
            .map(|c| c.id())
    })
}

/// A path as reports spell it (see [`path_text`]).
pub fn path_text_of(bytes: &[u8]) -> String {
    path_text(bytes)
}
