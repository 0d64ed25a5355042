//! JSON nesting past what any record needs, kept for a bit a level.

use super::NodeId;

/// Levels tracked with a frame and a pointer node each. Deeper levels (no real record
/// nests this far) cost one bit each, and their values share the pointer of the last
/// tracked level (pointers are elided long before it anyway), so a file of a hundred
/// million `[` costs megabytes, not gigabytes.
pub(super) const TRACKED_DEPTH: usize = 4096;

/// Containers nested past [`TRACKED_DEPTH`]: one bit each (set for an object).
#[derive(Default)]
pub(super) struct DeepLevels {
    bits: Vec<u64>,
    pub(super) len: usize,
    /// The node every value down there is recorded under.
    pub(super) node: Option<NodeId>,
}

impl DeepLevels {
    pub(super) fn push(&mut self, object: bool) {
        if self.len.is_multiple_of(64) {
            self.bits.push(0);
        }
        if object && let Some(w) = self.bits.last_mut() {
            *w |= 1 << (self.len % 64);
        }
        self.len += 1;
    }

    /// The innermost level: `Some(true)` for an object.
    pub(super) fn top(&self) -> Option<bool> {
        let i = self.len.checked_sub(1)?;
        Some(self.bits[i / 64] >> (i % 64) & 1 == 1)
    }

    pub(super) fn pop(&mut self) {
        self.len -= 1;
        if self.len.is_multiple_of(64) {
            self.bits.pop();
        }
        // Back above the tracked depth: the next deep run shares another node.
        if self.len == 0 {
            self.node = None;
        }
    }
}
