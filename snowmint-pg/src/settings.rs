//! The extension's settings (`snowmint.*` in `postgresql.conf`) and what they are read as: a
//! layout, its node values, the clock policy and the mark's interval.

use std::ffi::CString;

use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};
use snowmint::Layout;
use snowmint::layout::LayoutBuilder;

pub(crate) static LAYOUT: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub(crate) static NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub(crate) static EPOCH_MS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub(crate) static TICK_MS: GucSetting<i32> = GucSetting::<i32>::new(1);
pub(crate) static MAX_CLOCK_WAIT_MS: GucSetting<i32> = GucSetting::<i32>::new(1_000);
pub(crate) static MARK_INTERVAL_MS: GucSetting<i32> = GucSetting::<i32>::new(1_000);

/// The presets, as the error for an unset or unknown layout lists them.
const EXPECTED_LAYOUT: &str = "a preset (twitter, discord, instagram, mastodon, sonyflake, \
     snowflake-si, osmium, nanoflake) or fields such as time:41,machine:10,sequence:12 with \
     snowmint.epoch_ms";

/// Registers the settings. Every one is read when the server starts (`PGC_POSTMASTER`): the
/// backends share one state word, which only one layout and node can mint from.
pub(crate) fn define() {
    let string = |name, short, long, setting| {
        GucRegistry::define_string_guc(
            name,
            short,
            long,
            setting,
            GucContext::Postmaster,
            GucFlags::default(),
        );
    };
    string(
        c"snowmint.layout",
        c"The ID layout snowmint_id() mints: a preset, or fields such as time:41,machine:10,sequence:12.",
        c"A preset (twitter, discord, instagram, mastodon, sonyflake, snowflake-si, osmium, nanoflake) or comma-separated NAME:BITS fields from the most significant (unused, time, sequence, tick-tock, or a node field's name).",
        &LAYOUT,
    );
    string(
        c"snowmint.node",
        c"The node value(s) of this server: a number for a layout with one node field, or name=value,... for several.",
        c"Every server minting IDs of one layout needs node values of its own.",
        &NODE,
    );
    string(
        c"snowmint.epoch_ms",
        c"The epoch of a layout given as fields (or of nanoflake, snowflake-si or osmium), in Unix milliseconds.",
        c"",
        &EPOCH_MS,
    );
    GucRegistry::define_int_guc(
        c"snowmint.tick_ms",
        c"The tick of a layout given as fields, in milliseconds.",
        c"",
        &TICK_MS,
        1,
        i32::MAX,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"snowmint.max_clock_wait_ms",
        c"How long a call waits for a clock that reads behind the IDs already minted before it fails.",
        c"After a restart with the clock behind the last IDs, or a clock stepped back, calls wait up to this long for the clock to pass them, then fail; they never repeat an ID.",
        &MAX_CLOCK_WAIT_MS,
        0,
        i32::MAX,
        GucContext::Postmaster,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"snowmint.mark_interval_ms",
        c"How far ahead of the IDs minted the mark file is written, in milliseconds of ID time.",
        c"The mark (snowmint.mark in the data directory) is written durably once per interval; after a crash, minting resumes above it.",
        &MARK_INTERVAL_MS,
        1,
        i32::MAX,
        GucContext::Postmaster,
        GucFlags::UNIT_MS,
    );
}

/// A setting's text, `None` when unset or empty.
fn text(setting: &GucSetting<Option<CString>>) -> Option<String> {
    let value = setting.get()?;
    let value = value.to_string_lossy().trim().to_owned();
    (!value.is_empty()).then_some(value)
}

/// `snowmint.epoch_ms`, if set.
fn epoch_ms() -> Result<Option<u64>, String> {
    let Some(value) = text(&EPOCH_MS) else {
        return Ok(None);
    };
    value.parse().map(Some).map_err(|_| {
        format!("snowmint.epoch_ms is {value:?}; expected a whole number of Unix milliseconds")
    })
}

/// The layout `snowmint.layout` names, with its epoch and tick settings.
pub(crate) fn layout() -> Result<Layout, String> {
    let Some(value) = text(&LAYOUT) else {
        return Err(format!(
            "snowmint.layout is not set; expected {EXPECTED_LAYOUT} in postgresql.conf"
        ));
    };
    let epoch_ms = epoch_ms()?;
    if value.contains(':') || value.contains(',') {
        return fields(&value, epoch_ms, TICK_MS.get());
    }
    Layout::preset(&value, epoch_ms).map_err(|error| match error {
        snowmint::Error::UnknownLayout { .. } => {
            format!("snowmint.layout is {value:?}; expected {EXPECTED_LAYOUT}")
        }
        error => format!("snowmint.layout {value:?}: {error}"),
    })
}

/// A layout spelled as fields, `NAME:BITS,...` (or `tick-tock`) from the most significant bit.
fn fields(spec: &str, epoch_ms: Option<u64>, tick_ms: i32) -> Result<Layout, String> {
    let bad = |problem: String| format!("snowmint.layout {spec:?}: {problem}");
    let builder = LayoutBuilder::from_fields("custom", spec).map_err(|error| match error {
        snowmint::Error::InvalidLayoutFields { problem, .. } => bad(problem),
        error => bad(error.to_string()),
    })?;
    let epoch_ms = epoch_ms.ok_or_else(|| {
        bad(
            "a layout given as fields needs snowmint.epoch_ms, its epoch in Unix milliseconds"
                .to_owned(),
        )
    })?;
    builder
        .epoch_ms(epoch_ms)
        .tick_ms(u64::try_from(tick_ms).unwrap_or(1))
        .build()
        .map_err(|error| bad(error.to_string()))
}

/// The node values `snowmint.node` gives for `layout`: `N` for a layout with one node field,
/// `name=N,...` for any.
pub(crate) fn nodes(layout: &Layout) -> Result<Vec<(&'static str, u64)>, String> {
    let names: Vec<&'static str> = layout.node_fields().map(|field| field.name()).collect();
    let listed = names.join(", ");
    let Some(value) = text(&NODE) else {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        return Err(format!(
            "snowmint.node is not set; expected this server's value of {listed} (layout {}) in postgresql.conf",
            layout.name()
        ));
    };
    let number = |text: &str| {
        text.trim()
            .parse::<u64>()
            .map_err(|_| format!("snowmint.node is {value:?}; {text:?} is not a whole number"))
    };
    if names.is_empty() {
        return Err(format!(
            "snowmint.node is {value:?}; layout {} has no node field: expected snowmint.node unset",
            layout.name()
        ));
    }
    if !value.contains('=') {
        return match names.as_slice() {
            [name] => Ok(vec![(*name, number(&value)?)]),
            _ => Err(format!(
                "snowmint.node is {value:?}; layout {} has the node fields {listed}: expected name=value for each",
                layout.name()
            )),
        };
    }
    value
        .split(',')
        .map(|item| {
            let (name, n) = item.split_once('=').unwrap_or((item, ""));
            let name = names
                .iter()
                .find(|known| **known == name.trim())
                .ok_or_else(|| {
                    format!(
                        "snowmint.node names {:?}; layout {} has the node fields {listed}",
                        name.trim(),
                        layout.name()
                    )
                })?;
            Ok((*name, number(n)?))
        })
        .collect()
}

/// `snowmint.max_clock_wait_ms` and `snowmint.mark_interval_ms`, as milliseconds.
pub(crate) fn max_clock_wait_ms() -> u64 {
    u64::try_from(MAX_CLOCK_WAIT_MS.get()).unwrap_or(0)
}

pub(crate) fn mark_interval_ms() -> u64 {
    u64::try_from(MARK_INTERVAL_MS.get()).unwrap_or(1).max(1)
}
