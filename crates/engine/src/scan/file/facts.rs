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
use crate::detect::confidence::{Record, Role};
use crate::finding::{Confidence, Finding, Reason, Why};
use crate::formats::Unit;
use std::collections::HashSet;

/// Echo searches one unit may make; past them a model's value is taken as echoed,
/// which keeps its finding: time stays linear in the unit, and doubt reports.
const ECHO_SEARCHES: u32 = 64;
/// Places of a value looked at in one echo search.
const ECHO_PLACES: usize = 32;

/// Facts about the unit in hand; [`UnitFacts::reset`] when the next one starts.
#[derive(Default)]
pub(super) struct UnitFacts {
    shape: Option<Shape>,
    /// The unit's accounts were gathered (into the file's set).
    users_gathered: bool,
    echo_searches: u32,
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
        self.echo_searches = 0;
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

impl Record for Around<'_> {
    fn echoed(&mut self) -> bool {
        if self.facts.echo_searches >= ECHO_SEARCHES {
            return true;
        }
        self.facts.echo_searches += 1;
        let (unit, m) = (self.unit, self.m);
        let value = &unit.text[m.start..m.end];
        let own = &unit.segments[m.seg];
        for at in memchr::memmem::find_iter(&unit.text, value).take(ECHO_PLACES) {
            if (own.start..own.end).contains(&at) {
                continue;
            }
            let seg = unit
                .segments
                .partition_point(|s| s.start <= at)
                .saturating_sub(1);
            if self.facts.role(unit, self.roles, seg) != Role::Model {
                return true;
            }
        }
        false
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
