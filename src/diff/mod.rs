//! The semantic diff: normalise, walk, classify. (Diff-engine helper owns this module.)

use crate::change::Change;
use crate::surface::ServerSurface;

/// Every change between a pinned surface and a live one, unclassified by policy (default classes),
/// ordered by (tool, pointer, rule).
pub fn diff_surfaces(old: &ServerSurface, new: &ServerSurface) -> Vec<Change> {
    let _ = (old, new);
    Vec::new()
}
