//! Who wrote a string: a model (its answer), a person (a question, an instruction), a
//! machine (a tool's output, a traceback, run metadata) or the task itself (set-up
//! scripts, ground truth, fixtures). Read from the record's own shape — the member
//! names above the value and a speaker member (`"role": "assistant"`) of an object it
//! sits in — with the words of `rules/vocabulary/roles.toml`, never per repository.

use super::words;
use crate::formats::{NodeId, Unit};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Role {
    #[default]
    Unknown,
    Model,
    Person,
    Machine,
    Task,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RolesFile {
    model: Vec<String>,
    answer_like: Vec<String>,
    output_like: Vec<String>,
    names_model: Vec<String>,
    names_command: Vec<String>,
    person: Vec<String>,
    machine: Vec<String>,
    task: Vec<String>,
    speaker_members: Vec<String>,
    speaker_model: Vec<String>,
    speaker_person: Vec<String>,
    speaker_machine: Vec<String>,
}

const BUILTIN_ROLES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/rules/vocabulary/roles.toml"
));

/// What one word of a member name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Role(Role),
    /// A model's answer if the record names a model.
    AnswerLike,
    /// A program's output if its object names a command, else like an answer.
    OutputLike,
}

/// The role vocabulary, compiled.
#[derive(Debug, Default, Clone)]
pub struct Roles {
    words: HashMap<String, Word>,
    names_model: Vec<String>,
    names_command: Vec<String>,
    speaker_members: Vec<String>,
    speakers: HashMap<String, Role>,
}

/// Heads that make a member name a credential's own (`DB_PASSWORD`, `seed_token`): the
/// words before them say which credential it is, not who wrote its value, so the
/// members above decide (`{"fixtures": {"db_password": …}}` is still the task's).
const CREDENTIAL_HEADS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "credential",
    "credentials",
];

impl Roles {
    /// The shipped vocabulary. A test checks it parses; were it ever not to, no value
    /// would have a role and confidence would only be less often lowered.
    pub fn builtin() -> Roles {
        toml::from_str::<RolesFile>(BUILTIN_ROLES)
            .map(Roles::from_file)
            .unwrap_or_default()
    }

    fn from_file(f: RolesFile) -> Roles {
        let mut words = HashMap::new();
        let mut put = |list: &[String], w: Word| {
            for s in list {
                words.entry(s.to_ascii_lowercase()).or_insert(w);
            }
        };
        put(&f.model, Word::Role(Role::Model));
        put(&f.person, Word::Role(Role::Person));
        put(&f.machine, Word::Role(Role::Machine));
        put(&f.task, Word::Role(Role::Task));
        put(&f.answer_like, Word::AnswerLike);
        put(&f.output_like, Word::OutputLike);
        let mut speakers = HashMap::new();
        for (list, role) in [
            (&f.speaker_model, Role::Model),
            (&f.speaker_person, Role::Person),
            (&f.speaker_machine, Role::Machine),
        ] {
            for s in list {
                speakers.insert(s.to_ascii_lowercase(), role);
            }
        }
        Roles {
            words,
            names_model: f.names_model,
            names_command: f.names_command,
            speaker_members: f.speaker_members,
            speakers,
        }
    }

    /// What a member name says: its last word in the vocabulary decides, as the head
    /// of a compound does; an answer- or output-like head defers to a role word before
    /// it (`expected_output` is the task's).
    fn key(&self, key: &str) -> Option<Word> {
        let all: Vec<String> = words(key).collect();
        if all
            .last()
            .is_some_and(|w| CREDENTIAL_HEADS.contains(&w.as_str()))
        {
            return None;
        }
        let found: Vec<Word> = all
            .iter()
            .filter_map(|w| self.words.get(w).copied())
            .collect();
        match found.last()? {
            Word::Role(r) => Some(Word::Role(*r)),
            head => Some(
                found
                    .iter()
                    .rev()
                    .find(|w| matches!(w, Word::Role(_)))
                    .copied()
                    .unwrap_or(*head),
            ),
        }
    }

    fn names(&self, key: &str, list: &[String]) -> bool {
        words(key).any(|w| list.contains(&w))
    }

    fn speaker(&self, value: &[u8]) -> Option<Role> {
        let v = std::str::from_utf8(value).ok()?.trim().to_ascii_lowercase();
        self.speakers.get(&v).copied()
    }

    /// The role a spelled-out pointer's member names give, for text decoded out of a
    /// JSON value (the record's shape is not at hand there). Ambiguous names say
    /// nothing.
    pub fn of_pointer(&self, pointer: &str) -> Role {
        pointer
            .rsplit('/')
            .filter(|s| !s.is_empty() && !s.bytes().all(|b| b.is_ascii_digit()))
            .find_map(|k| match self.key(k) {
                Some(Word::Role(r)) => Some(r),
                _ => None,
            })
            .unwrap_or_default()
    }
}

/// What the objects of one unit say about themselves: a speaker member's role, and
/// whether a member names a model or a command. Built once per unit, on the first
/// finding that asks, in one pass over its members and values.
#[derive(Default)]
pub struct Shape {
    /// Per node, what the object it is says of itself (see [`Object`]): one byte a
    /// node, no hashing on a path every finding takes.
    objects: Vec<u8>,
    /// What each distinct member name says: a unit holds thousands of members but a
    /// few dozen names, so each name is split into words once.
    keys: HashMap<String, KeyFacts, Fnv>,
}

/// The bits of [`Shape::objects`]: a member names a model, a command; and the role a
/// speaker member gives (0 for none).
struct Object;

impl Object {
    const MODEL: u8 = 1;
    const COMMAND: u8 = 2;
    const SPEAKER_SHIFT: u8 = 2;

    fn speaker(bits: u8) -> Option<Role> {
        match bits >> Self::SPEAKER_SHIFT {
            1 => Some(Role::Model),
            2 => Some(Role::Person),
            3 => Some(Role::Machine),
            4 => Some(Role::Task),
            _ => None,
        }
    }

    fn with_speaker(bits: u8, role: Role) -> u8 {
        let code = match role {
            Role::Model => 1,
            Role::Person => 2,
            Role::Machine => 3,
            Role::Task => 4,
            Role::Unknown => 0,
        };
        (bits & 0b11) | (code << Self::SPEAKER_SHIFT)
    }
}

/// FNV-1a: member names are short and trusted to be few; SipHash's guard against
/// chosen collisions costs more than the lookups it guards here.
#[derive(Default, Clone, Copy)]
struct Fnv;

impl std::hash::BuildHasher for Fnv {
    type Hasher = FnvHasher;
    fn build_hasher(&self) -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

struct FnvHasher(u64);

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[derive(Clone, Copy)]
struct KeyFacts {
    word: Option<Word>,
    names_model: bool,
    names_command: bool,
    speaker: bool,
}

impl Shape {
    pub fn of(unit: &Unit, roles: &Roles) -> Shape {
        let mut objects = vec![0u8; unit.paths.len()];
        let mut keys: HashMap<String, KeyFacts, Fnv> = HashMap::default();
        let mut speakers: Vec<NodeId> = Vec::new();
        for (node, parent, key) in unit.paths.members() {
            let facts = match keys.get(key) {
                Some(f) => *f,
                None => {
                    let f = KeyFacts {
                        word: roles.key(key),
                        names_model: roles.names(key, &roles.names_model),
                        names_command: roles.names(key, &roles.names_command),
                        speaker: roles.speaker_members.iter().any(|m| m == key),
                    };
                    keys.insert(key.to_string(), f);
                    f
                }
            };
            if let Some(o) = objects.get_mut(parent.index()) {
                if facts.names_model {
                    *o |= Object::MODEL;
                }
                if facts.names_command {
                    *o |= Object::COMMAND;
                }
            }
            if facts.speaker {
                speakers.push(node);
            }
        }
        if !speakers.is_empty() {
            // A speaker member's value is one segment, at its node.
            let mut wanted = vec![false; unit.paths.len()];
            for n in &speakers {
                wanted[n.index()] = true;
            }
            for seg in unit.segments.iter().filter(|s| !s.is_key) {
                let Some(node) = seg.node.filter(|n| wanted.get(n.index()) == Some(&true)) else {
                    continue;
                };
                if let (Some(parent), Some(role)) = (
                    unit.paths.parent(node),
                    roles.speaker(&unit.text[seg.start..seg.end]),
                ) && let Some(o) = objects.get_mut(parent.index())
                {
                    *o = Object::with_speaker(*o, role);
                }
            }
        }
        Shape { objects, keys }
    }

    fn key(&self, roles: &Roles, key: &str) -> Option<Word> {
        match self.keys.get(key) {
            Some(f) => f.word,
            None => roles.key(key),
        }
    }

    fn bits(&self, id: NodeId) -> u8 {
        self.objects.get(id.index()).copied().unwrap_or(0)
    }

    /// Who wrote the value at `node`: the nearest member name or speaker above it
    /// that says.
    pub fn role(&self, unit: &Unit, roles: &Roles, node: NodeId) -> Role {
        let paths = &unit.paths;
        let mut cur = node;
        // The nearest members decide; a document nested thousands deep is not walked
        // to its root for every finding.
        for _ in 0..MAX_ROLE_DEPTH {
            if let Some(p) = paths.verbatim_of(cur) {
                return roles.of_pointer(p);
            }
            match paths.last_key(cur).and_then(|k| self.key(roles, k)) {
                Some(Word::Role(r)) => return r,
                Some(w) => {
                    if let Some(r) = self.resolve(paths, cur, w == Word::OutputLike) {
                        return r;
                    }
                }
                None => {}
            }
            let Some(parent) = paths.parent(cur) else {
                return Role::Unknown;
            };
            if let Some(r) = Object::speaker(self.bits(parent)) {
                return r;
            }
            cur = parent;
        }
        Role::Unknown
    }

    /// An `output` is a machine's when its object names a command or an action; it
    /// and a `response` are a model's when the record names a model.
    fn resolve(
        &self,
        paths: &crate::formats::PathArena,
        member: NodeId,
        output: bool,
    ) -> Option<Role> {
        let holder = paths.parent(member)?;
        if output && self.bits(holder) & Object::COMMAND != 0 {
            return Some(Role::Machine);
        }
        let mut cur = Some(holder);
        for _ in 0..MAX_ROLE_DEPTH {
            let id = cur?;
            if self.bits(id) & Object::MODEL != 0 {
                return Some(Role::Model);
            }
            cur = paths.parent(id);
        }
        None
    }
}

/// A model's string may hold a whole conversation (`\n\nHuman: … \n\nAssistant: …`,
/// as preference data keeps its `chosen` and `rejected` texts): the last turn marker
/// before the value says who wrote it. Looks back at most `TURN_WINDOW` bytes.
pub fn turn_before(text: &[u8]) -> Option<Role> {
    let text = &text[text.len().saturating_sub(TURN_WINDOW)..];
    let mut best: Option<(usize, Role)> = None;
    for (marker, role) in [
        (&b"\nHuman:"[..], Role::Person),
        (b"\nUser:", Role::Person),
        (b"\nAssistant:", Role::Model),
        (b"\nAI:", Role::Model),
    ] {
        if let Some(at) = memchr::memmem::rfind(text, marker)
            && best.is_none_or(|(b, _)| at > b)
        {
            best = Some((at, role));
        }
    }
    best.map(|(_, r)| r)
}

const TURN_WINDOW: usize = 8192;

/// How many levels up from a value its writer is looked for.
const MAX_ROLE_DEPTH: usize = 64;

#[cfg(test)]
#[path = "role_tests.rs"]
mod tests;
