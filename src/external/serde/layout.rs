//! A [`Layout`]'s form: its definition, checked by [`LayoutBuilder::build`] when read, with
//! its names interned; and the bound on what a deserializer's error repeats.

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, bounded};
use crate::layout::{FieldKind, Layout, LayoutBuilder, LayoutProblem, name_problem};

/// A field as stored: its kind, name and width.
#[derive(Serialize, Deserialize)]
pub(super) struct FieldDef {
    pub(super) kind: Kind,
    pub(super) name: String,
    pub(super) bits: u8,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Kind {
    Unused,
    Time,
    Node,
    TickTock,
    Sequence,
}

/// A layout as stored.
#[derive(Serialize, Deserialize)]
pub(super) struct LayoutDef {
    pub(super) name: String,
    pub(super) width: u8,
    pub(super) fields: Vec<FieldDef>,
    pub(super) tick_ms: u64,
    pub(super) epoch_ms: u64,
}

/// The most characters a stored layout or field name may have.
const MAX_NAME_CHARS: usize = 64;

/// The most distinct stored names a process keeps: each is allocated once and kept for the
/// process's life, so layouts read from untrusted input cannot grow memory without bound.
const MAX_NAMES: usize = 4096;

/// `name`, allocated once per process; refused when longer than [`MAX_NAME_CHARS`], or new
/// once [`MAX_NAMES`] are held.
pub(super) fn intern(name: &str) -> Result<&'static str, LayoutProblem> {
    /// Fork: held only inside a fork section (see `crate::fork`), so a child never finds it
    /// taken by a thread it does not have.
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    // The gate before the lock: a fork waits for the insert, which allocates at most.
    let _section = crate::fork::enter();
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    intern_into(names.get_or_insert_with(HashSet::new), name, MAX_NAMES)
}

/// [`intern`], once `name` is known to hold only the characters a name of `of` may have (the
/// builder checks the rest), so no stored name with others is kept.
fn intern_checked(of: &'static str, name: &str) -> Result<&'static str, LayoutProblem> {
    match name_problem(of, name) {
        Some(problem @ LayoutProblem::NameCharacter { .. }) => Err(problem),
        _ => intern(name),
    }
}

/// [`intern`] into `names`, which holds at most `max` names.
pub(super) fn intern_into(
    names: &mut HashSet<&'static str>,
    name: &str,
    max: usize,
) -> Result<&'static str, LayoutProblem> {
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(LayoutProblem::NameTooLong {
            chars,
            max: MAX_NAME_CHARS,
        });
    }
    if let Some(&interned) = names.get(name) {
        return Ok(interned);
    }
    if names.len() >= max {
        return Err(LayoutProblem::TooManyNames { max });
    }
    let interned: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(interned);
    Ok(interned)
}

impl From<&Layout> for LayoutDef {
    fn from(layout: &Layout) -> Self {
        let fields = layout
            .fields()
            .iter()
            .map(|f| FieldDef {
                kind: match f.kind() {
                    FieldKind::Unused => Kind::Unused,
                    FieldKind::Time => Kind::Time,
                    FieldKind::Node => Kind::Node,
                    FieldKind::TickTock => Kind::TickTock,
                    FieldKind::Sequence => Kind::Sequence,
                },
                name: f.name().to_owned(),
                bits: f.bits() as u8,
            })
            .collect();
        LayoutDef {
            name: layout.name().to_owned(),
            width: layout.width() as u8,
            fields,
            tick_ms: layout.tick_ms(),
            epoch_ms: layout.epoch_ms(),
        }
    }
}

impl LayoutDef {
    pub(super) fn build(&self) -> crate::error::Result<Layout> {
        let name =
            intern_checked("layout", &self.name).map_err(|problem| Error::InvalidLayout {
                layout: "(stored)",
                problem,
            })?;
        let mut builder = LayoutBuilder::new(name, self.width);
        for field in &self.fields {
            builder = match field.kind {
                Kind::Unused => builder.unused(field.bits),
                Kind::Time => builder.time(field.bits),
                Kind::Node => {
                    let field_name =
                        intern_checked("node field", &field.name).map_err(|problem| {
                            Error::InvalidLayout {
                                layout: name,
                                problem,
                            }
                        })?;
                    builder.node(field_name, field.bits)
                }
                Kind::TickTock => builder.tick_tock(),
                Kind::Sequence => builder.sequence(field.bits),
            };
        }
        let layout = builder
            .tick_ms(self.tick_ms)
            .epoch_ms(self.epoch_ms)
            .build()?;
        // Every stored field must be the field built from it: a tick-tock bit is one bit
        // wide and named `tick-tock`, and only node fields have names of their own.
        let built = LayoutDef::from(&layout);
        let mismatch = self
            .fields
            .iter()
            .zip(&built.fields)
            .position(|(stored, made)| stored.bits != made.bits || stored.name != made.name);
        if let Some(i) = mismatch {
            let (stored, made) = (&self.fields[i], &built.fields[i]);
            return Err(Error::InvalidLayout {
                layout: layout.name(),
                problem: LayoutProblem::StoredField {
                    index: i,
                    bits: stored.bits,
                    expected: layout.fields()[i].name(),
                    expected_bits: made.bits,
                },
            });
        }
        Ok(layout)
    }
}

/// The deserializer's error with every string it repeats cut to at most 64 characters, an
/// ellipsis marking the cut: serde's messages repeat a string given where another type was
/// expected (`string "..."`), and an unknown variant or field name (`` `...` ``), whole.
pub(super) fn bounded_error<E: serde::de::Error>(error: E) -> E {
    let message = error.to_string();
    match bound_echoes(&message) {
        Some(bounded) => E::custom(bounded),
        None => error,
    }
}

/// `message` with each string serde repeats cut to 64 characters; `None` when none is longer.
pub(super) fn bound_echoes(message: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = message;
    let mut cut = false;
    loop {
        let quoted = rest
            .find("string \"")
            .map(|at| (at + "string \"".len(), '"'));
        let ticked = ["unknown variant `", "unknown field `"]
            .iter()
            .filter_map(|opening| rest.find(opening).map(|at| (at + opening.len(), '`')))
            .min();
        let Some((start, close)) = [quoted, ticked].into_iter().flatten().min() else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        // The echo ends at its closing mark: an unescaped `"` for `{:?}`-written strings; for
        // names written as they are, the last "`, expected" or "`, there are no" (serde's
        // list of expected names follows, and holds neither).
        let end = if close == '"' {
            let mut escaped = false;
            rest.char_indices()
                .find(|&(_, c)| {
                    let end = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    end
                })
                .map_or(rest.len(), |(at, _)| at)
        } else {
            rest.rfind("`, expected ")
                .or_else(|| rest.rfind("`, there are no "))
                .unwrap_or(rest.len())
        };
        let echo = bounded(&rest[..end]);
        cut |= echo.len() < end;
        out.push_str(&echo);
        rest = &rest[end..];
    }
    out.push_str(rest);
    cut.then_some(out)
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Layout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LayoutDef::from(self).serialize(serializer)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Layout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        LayoutDef::deserialize(deserializer)
            .map_err(bounded_error)?
            .build()
            .map_err(D::Error::custom)
    }
}
