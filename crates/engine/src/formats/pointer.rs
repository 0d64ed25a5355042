//! JSON Pointers as a parent-linked tree.
//!
//! Materialising a pointer string for every JSON value would cost O(depth) per value,
//! which is quadratic on hostile, deeply nested input. Instead each object member and
//! array element adds one node, and a pointer is spelled out only when a finding needs it.

/// Index of a node in a [`PathArena`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeId(u32);

impl NodeId {
    /// The node's place in its arena: a dense index for side tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The node at `index` of its arena (see [`NodeId::index`]).
    pub fn from_index(index: usize) -> NodeId {
        NodeId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Root,
    Key {
        start: u32,
        end: u32,
    },
    Index(u32),
    /// An already spelled-out pointer, for text decoded out of a JSON value.
    Verbatim {
        start: u32,
        end: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    step: Step,
}

/// Longest pointer we spell out; beyond it the tail is elided so a hostile document
/// cannot make one finding allocate megabytes.
const MAX_POINTER_BYTES: usize = 1024;

#[derive(Debug, Default)]
pub struct PathArena {
    nodes: Vec<Node>,
    keys: String,
}

impl PathArena {
    /// Memory a node takes.
    pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

    /// Nodes held.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.keys.clear();
    }

    /// Keeps the first `len` nodes only (and the key text they name).
    pub fn truncate(&mut self, len: usize) {
        self.nodes.truncate(len);
        let used = self.nodes.iter().filter_map(|n| match n.step {
            Step::Key { end, .. } | Step::Verbatim { end, .. } => Some(end as usize),
            Step::Root | Step::Index(_) => None,
        });
        self.keys.truncate(used.max().unwrap_or(0));
    }

    pub fn root(&mut self) -> NodeId {
        self.push(Node {
            parent: u32::MAX,
            step: Step::Root,
        })
    }

    pub fn key(&mut self, parent: NodeId, key: &str) -> NodeId {
        let start = self.keys.len() as u32;
        self.keys.push_str(key);
        let end = self.keys.len() as u32;
        self.push(Node {
            parent: parent.0,
            step: Step::Key { start, end },
        })
    }

    pub fn index(&mut self, parent: NodeId, index: u32) -> NodeId {
        self.push(Node {
            parent: parent.0,
            step: Step::Index(index),
        })
    }

    /// A root-level node that renders as `pointer` verbatim.
    pub fn verbatim(&mut self, pointer: &str) -> NodeId {
        let start = self.keys.len() as u32;
        self.keys.push_str(pointer);
        let end = self.keys.len() as u32;
        self.push(Node {
            parent: u32::MAX,
            step: Step::Verbatim { start, end },
        })
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// The member name of `id`, if it is an object member.
    pub fn last_key(&self, id: NodeId) -> Option<&str> {
        match self.nodes.get(id.0 as usize)?.step {
            Step::Key { start, end } => self.keys.get(start as usize..end as usize),
            _ => None,
        }
    }

    /// The node `id` hangs under; `None` for a root.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let parent = self.nodes.get(id.0 as usize)?.parent;
        (parent != u32::MAX).then_some(NodeId(parent))
    }

    /// The spelled-out pointer of a verbatim node (text decoded out of a JSON value).
    pub fn verbatim_of(&self, id: NodeId) -> Option<&str> {
        match self.nodes.get(id.0 as usize)?.step {
            Step::Verbatim { start, end } => self.keys.get(start as usize..end as usize),
            _ => None,
        }
    }

    /// Every object member: its node, the node of the object it belongs to, and its
    /// name.
    pub fn members(&self) -> impl Iterator<Item = (NodeId, NodeId, &str)> {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match n.step {
                Step::Key { start, end } if n.parent != u32::MAX => Some((
                    NodeId(i as u32),
                    NodeId(n.parent),
                    self.keys.get(start as usize..end as usize)?,
                )),
                _ => None,
            })
    }

    /// The RFC 6901 pointer of `id` (`""` for the root). Past [`MAX_POINTER_BYTES`]
    /// the steps nearest the root are elided (`/…/a/b`): the walk up stops there, so a
    /// finding at every level of a deeply nested document costs no more than the cap.
    pub fn pointer(&self, id: NodeId) -> String {
        let mut steps = Vec::new();
        let mut cur = id.0;
        let mut size = 0usize;
        let mut cut = false;
        while let Some(node) = self.nodes.get(cur as usize) {
            if size > MAX_POINTER_BYTES {
                cut = true;
                break;
            }
            size += match node.step {
                Step::Key { start, end } | Step::Verbatim { start, end } => {
                    (end - start) as usize + 1
                }
                Step::Index(_) => 11,
                Step::Root => 0,
            };
            steps.push(node.step);
            cur = node.parent;
        }
        let mut out = String::new();
        if cut {
            out.push_str("/…");
        }
        for step in steps.iter().rev() {
            match *step {
                Step::Root => {}
                Step::Verbatim { start, end } => {
                    out.push_str(self.keys.get(start as usize..end as usize).unwrap_or(""));
                }
                Step::Index(i) => {
                    out.push('/');
                    out.push_str(&i.to_string());
                }
                Step::Key { start, end } => {
                    out.push('/');
                    let key = self.keys.get(start as usize..end as usize).unwrap_or("");
                    for c in key.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_tilde_and_slash() {
        let mut a = PathArena::default();
        let root = a.root();
        let k = a.key(root, "a/b~c");
        let i = a.index(k, 3);
        assert_eq!(a.pointer(root), "");
        assert_eq!(a.pointer(i), "/a~1b~0c/3");
        assert_eq!(a.last_key(k), Some("a/b~c"));
        assert_eq!(a.last_key(i), None);
    }
}
