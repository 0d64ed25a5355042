//! The integration tests: the real binary on real files, real git repositories and
//! the real daemon. One test binary (as ripgrep has), one module per subject, and the
//! helpers once, in `util`.

// The tests signal the daemon, ask for root and make FIFOs through libc: plain FFI
// calls on values the test owns.
#![allow(unsafe_code, clippy::undocumented_unsafe_blocks)]

mod util;

mod continued;
mod credentials;
mod daemon;
mod daemon_faults;
mod decoys;
mod disguises;
mod docs;
mod evasion;
mod first_hour;
mod fix;
mod fix_property;
mod fix_provenance;
mod gate;
mod gate_fields;
mod git;
mod habits;
mod hostile;
mod hostile_layers;
mod hostile_races;
mod hostile_sizes;
mod keys;
mod leak;
mod leak_doors;
mod leak_forms;
mod leak_layers;
mod leak_property;
mod merge;
mod messages;
mod precision;
mod provenance;
mod providers;
mod scan_sample;
mod schema;
mod stream;
mod team;
mod team_push;
mod trail;
mod windows;
