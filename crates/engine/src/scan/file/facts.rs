//! What the confidence model asks of the record around a match, answered once per
//! unit and only when a finding asks: the record's shape (who wrote each value), the
//! accounts its text creates, and whether a model's value stands elsewhere too.
//!
//! Accounts are also gathered for the whole file: a user created in one record (or
//! a later piece of a stream) and used in another is still the data's own, so the
//! findings that named a user not yet known are judged again when the file ends.

use crate::detect::RawMatch;
use crate::detect::confidence::defined::created_users;
use crate::detect::confidence::role::{Roles, Shape};
use crate::detect::confidence::{Elsewhere, Record, Role};
use crate::finding::{Confidence, Finding, Reason, Why};
use crate::formats::{NodeId, Unit};
use std::collections::HashSet;

/// Bytes of records the echo searches of one unit may read, as a multiple of the
/// unit's size; past them a model's value is taken as echoed, which keeps its
/// finding: time stays linear in the unit, and doubt reports.
const ECHO_BUDGET_TIMES: usize = 16;
/// Places of a value looked at in one echo search.
const ECHO_PLACES: usize = 32;

/// Facts about the unit in hand; [`UnitFacts::reset`] when the next one starts.
#[derive(Default)]
pub(super) struct UnitFacts {
    shape: Option<Shape>,
    /// The unit's accounts were gathered (into the file's set).
    users_gathered: bool,
    /// Bytes the echo searches of this unit have read.
    echo_read: usize,
    /// The record (a top-level value: a JSON Lines line, an element of a top-level
    /// array) each node belongs to, by node index.
    records: Option<Vec<u32>>,
    /// The last record read, lowercased: findings come in order, so the next one is
    /// most often in the same record.
    record: Option<LoweredRecord>,
}

struct LoweredRecord {
    id: u32,
    start: usize,
    text: Vec<u8>,
    /// Whether the record holds a fiction marker, once asked: every finding of a
    /// record asks the same.
    fiction: Option<bool>,
}

/// Accounts the whole file creates, and findings waiting to know them.
#[derive(Default)]
pub(super) struct FileFacts {
    users: HashSet<String>,
    /// (index in the file's findings, user segment) of medium findings whose user
    /// was not known as created when they were judged.
    pending: Vec<(usize, String)>,
}

impl UnitFacts {
    pub fn reset(&mut self) {
        self.shape = None;
        self.users_gathered = false;
        self.echo_read = 0;
        self.records = None;
        self.record = None;
    }

    /// The lowercased text of the record of segment `seg`, or `None` once the unit's
    /// reading budget is spent.
    fn lowered_record(&mut self, unit: &Unit, seg: usize) -> Option<&LoweredRecord> {
        let id = self.record_of(unit, seg);
        // Outside JSON the record is the whole unit (one per layer: the facts are reset
        // with each), so it is lowered once, not once per match.
        let same = self.record.as_ref().is_some_and(|r| r.id == id);
        if !same {
            let (start, end) = self.record_span(unit, seg);
            self.record = Some(LoweredRecord {
                id,
                start,
                text: unit.text[start..end].to_ascii_lowercase(),
                fiction: None,
            });
        }
        self.record.as_mut().map(|r| &*r)
    }

    /// The record of the segment `seg`, as a node index (`u32::MAX` outside JSON).
    fn record_of(&mut self, unit: &Unit, seg: usize) -> u32 {
        let records = self.records.get_or_insert_with(|| {
            // Parents come before their children, so one pass in order finds each
            // node's record from its parent's.
            let paths = &unit.paths;
            let mut rec: Vec<u32> = Vec::with_capacity(paths.len());
            for i in 0..paths.len() {
                let id = NodeId::from_index(i);
                let r = match paths.parent(id) {
                    None => i as u32,
                    Some(p) if paths.parent(p).is_none() => i as u32,
                    Some(p) => rec.get(p.index()).copied().unwrap_or(i as u32),
                };
                rec.push(r);
            }
            rec
        });
        unit.segments
            .get(seg)
            .and_then(|s| s.node)
            .and_then(|n| records.get(n.index()).copied())
            .unwrap_or(u32::MAX)
    }

    /// The bytes of `unit.text` that hold the record of segment `seg`.
    fn record_span(&mut self, unit: &Unit, seg: usize) -> (usize, usize) {
        let rec = self.record_of(unit, seg);
        if rec == u32::MAX {
            return (0, unit.text.len());
        }
        let mut first = seg;
        while first > 0 && self.record_of(unit, first - 1) == rec {
            first -= 1;
        }
        let mut last = seg;
        while last + 1 < unit.segments.len() && self.record_of(unit, last + 1) == rec {
            last += 1;
        }
        (unit.segments[first].start, unit.segments[last].end)
    }

    fn shape(&mut self, unit: &Unit, roles: &Roles) -> &Shape {
        self.shape.get_or_insert_with(|| Shape::of(unit, roles))
    }

    /// Who wrote the segment `seg` of `unit`.
    pub fn role(&mut self, unit: &Unit, roles: &Roles, seg: usize) -> Role {
        match unit.segments.get(seg).and_then(|s| s.node) {
            Some(node) => {
                let shape = self.shape(unit, roles);
                shape.role(unit, roles, node)
            }
            None => Role::Unknown,
        }
    }
}

impl FileFacts {
    /// A medium finding at `index` named `user`, not known as created yet.
    pub fn wait(&mut self, index: usize, user: &str) {
        self.pending.push((index, user.to_string()));
    }

    /// Lowers the waiting findings whose user the file turned out to create.
    pub fn settle(&mut self, findings: &mut [Finding]) {
        for (i, user) in self.pending.drain(..) {
            if self.users.contains(&user)
                && let Some(f) = findings.get_mut(i)
            {
                f.confidence = Confidence::Low;
                f.why = Why::default().with(Reason::DefinedInRecord);
            }
        }
    }
}

/// The record around one match, as [`Record`] asks of it.
pub(super) struct Around<'a> {
    pub unit: &'a Unit,
    pub m: &'a RawMatch,
    pub roles: &'a Roles,
    pub facts: &'a mut UnitFacts,
    pub file: &'a mut FileFacts,
}

/// Written by somebody else or defined by the task: stands for a whole record whose
/// reading budget is spent, since doubt must report.
const DOUBT: Elsewhere = Elsewhere {
    not_model: true,
    task: false,
};

/// Conventions that mark a record's contact details as made up: the fiction phone
/// exchange and area code, the documentation domains, the sample address.
const FICTION: &[&[u8]] = &[
    b"(555)",
    b"-555-",
    b" 555-",
    b".555.",
    b"+1 555",
    b"@example.com",
    b"@example.org",
    b"@example.net",
    b"123 main st",
    b"anytown",
];

impl Record for Around<'_> {
    fn elsewhere(&mut self) -> Elsewhere {
        let (unit, m, roles) = (self.unit, self.m, self.roles);
        // Case apart: a model writes `ana.popescu@…` for the `Ana.Popescu@…` it was given.
        let value = unit.text[m.start..m.end].to_ascii_lowercase();
        let read_before = self.facts.echo_read;
        let Some(record) = self.facts.lowered_record(unit, m.seg) else {
            return DOUBT;
        };
        // Every search reads its record: the unit's budget bounds them all, so many
        // values in one huge record cost a few passes over it, not one each.
        let read = read_before + record.text.len();
        if read > ECHO_BUDGET_TIMES * unit.text.len() + (1 << 20) {
            return DOUBT;
        }
        let start = record.start;
        let places: Vec<usize> = memchr::memmem::find_iter(&record.text, &value)
            .take(ECHO_PLACES)
            .map(|at| start + at)
            .collect();
        self.facts.echo_read = read;
        let own = &unit.segments[m.seg];
        let mut found = Elsewhere::default();
        for at in places {
            if (own.start..own.end).contains(&at) {
                continue;
            }
            let seg = unit
                .segments
                .partition_point(|s| s.start <= at)
                .saturating_sub(1);
            match self.facts.role(unit, roles, seg) {
                Role::Model => {}
                Role::Task => {
                    found.not_model = true;
                    found.task = true;
                }
                _ => found.not_model = true,
            }
        }
        found
    }

    fn fiction_nearby(&mut self) -> bool {
        let (unit, m) = (self.unit, self.m);
        if self.facts.lowered_record(unit, m.seg).is_none() {
            return false;
        }
        let Some(record) = self.facts.record.as_mut() else {
            return false;
        };
        *record.fiction.get_or_insert_with(|| {
            FICTION
                .iter()
                .any(|f| memchr::memmem::find(&record.text, f).is_some())
        })
    }

    fn defines_user(&mut self, user: &str) -> bool {
        if !self.facts.users_gathered {
            created_users(&self.unit.text, &mut self.file.users);
            self.facts.users_gathered = true;
        }
        // The file's set holds the unit's.
        self.file.users.contains(user)
    }
}
