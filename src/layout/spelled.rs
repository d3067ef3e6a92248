//! A layout spelled as text: `NAME:BITS` fields from the most significant bit, as a
//! command-line flag or a server setting gives one.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::builder::LayoutBuilder;
use crate::error::{Error, Result, bounded};

impl LayoutBuilder {
    /// A builder of the layout `spec` spells: comma-separated fields from the most significant
    /// bit, each `NAME:BITS` (1 to 64 bits) or `tick-tock`; `unused`, `time` and `sequence` are
    /// those fields, and any other name (letters, digits, `_` and `-`) a node field. The width
    /// is the fields' sum. The epoch and tick are the caller's to set, as for
    /// [`LayoutBuilder::new`]; [`build`](Self::build) checks the rest.
    ///
    /// A node field's name must live as long as the layout: each distinct name is kept once
    /// for the life of the process, so reading the same spec again allocates nothing more.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayoutFields`], naming the field and what was expected: a field that is
    /// not `NAME:BITS` or `tick-tock`, a bad name, bits outside 1..=64, fields adding up to more
    /// than 64 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Layout, layout::LayoutBuilder};
    ///
    /// let layout = LayoutBuilder::from_fields("custom", "unused:1,time:41,region:4,host:6,sequence:12")?
    ///     .epoch_ms(1_704_067_200_000)
    ///     .build()?;
    /// assert_eq!(layout.width(), 64);
    /// assert_eq!(layout.node_fields().map(|f| f.name()).collect::<Vec<_>>(), ["region", "host"]);
    ///
    /// let err = LayoutBuilder::from_fields("custom", "time:41,machine").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "layout fields \"time:41,machine\": field 2 \"machine\" is not NAME:BITS or tick-tock"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_fields(name: &'static str, spec: &str) -> Result<LayoutBuilder> {
        let bad = |problem: String| Error::InvalidLayoutFields {
            spec: bounded(spec),
            problem,
        };
        let mut fields: Vec<(&str, u8)> = Vec::new();
        for (index, item) in spec.split(',').enumerate() {
            let item = item.trim();
            let number = index + 1;
            if item == "tick-tock" {
                fields.push(("tick-tock", 1));
                continue;
            }
            let Some((field, bits)) = item.split_once(':') else {
                return Err(bad(format!(
                    "field {number} {:?} is not NAME:BITS or tick-tock",
                    bounded(item)
                )));
            };
            let field = field.trim();
            let valid_name = !field.is_empty()
                && field
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !valid_name {
                return Err(bad(format!(
                    "field {number} has the name {:?}; expected letters, digits, _ or -",
                    bounded(field)
                )));
            }
            let bits = match bits.trim().parse::<u8>() {
                Ok(bits @ 1..=64) => bits,
                _ => {
                    return Err(bad(format!(
                        "field {number} ({field}) has {:?} bits, expected 1..=64",
                        bounded(bits.trim())
                    )));
                }
            };
            fields.push((field, bits));
        }
        let width: u32 = fields.iter().map(|&(_, bits)| u32::from(bits)).sum();
        let Ok(width @ 1..=64) = u8::try_from(width) else {
            return Err(bad(format!(
                "the fields add up to {width} bits, expected at most 64"
            )));
        };
        let mut builder = LayoutBuilder::new(name, width);
        for (field, bits) in fields {
            builder = match field {
                "tick-tock" => builder.tick_tock(),
                "unused" => builder.unused(bits),
                "time" => builder.time(bits),
                "sequence" => builder.sequence(bits),
                field => builder.node(kept(field), bits),
            };
        }
        Ok(builder)
    }
}

/// `name`, kept for the life of the process: once per distinct name.
///
/// Fork: the lock is taken inside a fork section, so no fork happens while a thread holds it,
/// and a child never finds it held by a thread the child does not have.
fn kept(name: &str) -> &'static str {
    static KEPT: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let _section = crate::fork::enter();
    // A poisoned set is still a set of valid names.
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(name) = kept.get(name) {
        return name;
    }
    let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
    kept.insert(name);
    name
}
