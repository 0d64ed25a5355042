//! A unit and every layer decoded out of it: base64, percent, backslash-escape,
//! quoted-printable and HTML-reference runs, defanged writing, other spellings of a
//! path, and on the file's own text the folded and the unwrapped readings.

use super::{decode, defang, disguise, escapes, path_forms, quoted};
use crate::formats::{Encoding, Unit};

/// Calls `visit` on `unit`, then on each layer peeled from it, depth first. `budget`
/// bounds the bytes decoded.
pub(super) fn walk(unit: &Unit, budget: &mut usize, visit: &mut dyn FnMut(&Unit)) {
    visit(unit);
    if unit.depth >= decode::MAX_DEPTH {
        return;
    }
    if let Some(layer) = decode::base64_layer(unit, budget) {
        walk(&layer, budget, visit);
    }
    if let Some(layer) = decode::percent_layer(unit, budget) {
        walk(&layer, budget, visit);
    }
    if unit.encoding != Some(Encoding::Escapes)
        && let Some(layer) = escapes::escape_layer(unit, budget)
    {
        walk(&layer, budget, visit);
    }
    if unit.encoding != Some(Encoding::QuotedPrintable)
        && let Some(layer) = quoted::quoted_layer(unit, budget)
    {
        walk(&layer, budget, visit);
    }
    if unit.encoding != Some(Encoding::Defanged)
        && let Some(layer) = defang::defang_layer(unit, budget)
    {
        walk(&layer, budget, visit);
    }
    if unit.encoding != Some(Encoding::PathForm)
        && let Some(layer) = path_forms::path_form_layer(unit, budget)
    {
        walk(&layer, budget, visit);
    }
    if unit.encoding != Some(Encoding::Entities)
        && let Some(layer) = disguise::entity_layer(unit, budget)
    {
        walk(&layer, budget, visit);
    }
    // Folding is not an encoding a writer chooses twice: only on the file's own text.
    if unit.encoding.is_none_or(|e| e == Encoding::Plain) {
        if let Some(layer) = disguise::fold_layer(unit, budget) {
            walk(&layer, budget, visit);
        }
        if let Some(layer) = decode::unwrap_layer(unit, budget) {
            walk(&layer, budget, visit);
        }
    }
}
