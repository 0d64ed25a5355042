//! A unit and every layer decoded out of it: base64, percent, backslash-escape,
//! quoted-printable and HTML-reference runs, defanged writing, other spellings of a
//! path, and on the file's own text the folded and the unwrapped readings.

use super::{decode, defang, disguise, entities, escapes, path_forms, quoted};
use crate::formats::{Encoding, Unit};

/// A decoder: the layer it peels from a unit, if any (bounded by `budget`).
type Peel = fn(&Unit, &mut usize) -> Option<Unit>;

/// Decoders that apply to any reading, each with the encoding it makes: a layer is not
/// decoded again by the decoder that made it, except base64 and percent, which writers
/// do nest (base64 in base64, `%2540`).
const ANY_READING: [(Peel, Option<Encoding>); 7] = [
    (decode::base64_layer, None),
    (decode::percent_layer, None),
    (escapes::escape_layer, Some(Encoding::Escapes)),
    (quoted::quoted_layer, Some(Encoding::QuotedPrintable)),
    (defang::defang_layer, Some(Encoding::Defanged)),
    (path_forms::path_form_layer, Some(Encoding::PathForm)),
    (entities::entity_layer, Some(Encoding::Entities)),
];

/// Readings a writer does not choose twice: only on the file's own text.
const OWN_TEXT: [Peel; 2] = [disguise::fold_layer, decode::unwrap_layer];

/// Calls `visit` on `unit`, then on each layer peeled from it, depth first. `budget`
/// bounds the bytes decoded.
pub(super) fn walk(unit: &Unit, budget: &mut usize, visit: &mut dyn FnMut(&Unit)) {
    visit(unit);
    if unit.depth >= decode::MAX_DEPTH {
        return;
    }
    let own_text = unit.encoding.is_none_or(|e| e == Encoding::Plain);
    let peels = ANY_READING
        .iter()
        .filter(|(_, made)| made.is_none() || unit.encoding != *made)
        .map(|(peel, _)| peel)
        .chain(OWN_TEXT.iter().filter(|_| own_text));
    for peel in peels {
        if let Some(layer) = peel(unit, budget) {
            walk(&layer, budget, visit);
        }
    }
}

#[cfg(test)]
/// The text of the layer `peel` makes of `text`, trimmed: for decoders' own tests.
pub(super) fn peeled(text: &str, peel: Peel) -> Option<String> {
    let mut unit = Unit::default();
    unit.push_plain(text.as_bytes(), 0, None);
    let out = peel(&unit, &mut usize::MAX.clone())?;
    Some(String::from_utf8_lossy(&out.text).trim().to_string())
}
