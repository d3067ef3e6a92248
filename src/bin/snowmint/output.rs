//! IDs written as JSON.

use std::io::{self, Write};

use snowmint::Parts;

/// `{"id":"…","layout":"…","timestamp_ms":…,"time":"…",["tick":0|1,]<node fields>,"sequence":…}`
///
/// `tick` (the timeline) is there exactly when the layout has a tick-tock bit.
pub(crate) fn write_json(out: &mut dyn Write, parts: &Parts<'_>) -> io::Result<()> {
    write!(out, "{{\"id\":\"{}\",\"layout\":", parts.id())?;
    write_json_string(out, parts.layout().name())?;
    write!(
        out,
        ",\"timestamp_ms\":{},\"time\":\"{}\"",
        parts.timestamp_ms(),
        parts.time_rfc3339()
    )?;
    if let Some(timeline) = parts.timeline() {
        write!(out, ",\"tick\":{timeline}")?;
    }
    for (name, value) in parts.nodes() {
        out.write_all(b",")?;
        write_json_string(out, name)?;
        write!(out, ":{value}")?;
    }
    writeln!(out, ",\"sequence\":{}}}", parts.sequence())
}

/// A JSON string literal. Preset names are plain ASCII; escaping keeps any other name valid.
pub(crate) fn write_json_string(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    for c in s.chars() {
        match c {
            '"' => out.write_all(b"\\\"")?,
            '\\' => out.write_all(b"\\\\")?,
            c if u32::from(c) < 0x20 => write!(out, "\\u{:04x}", u32::from(c))?,
            c => write!(out, "{c}")?,
        }
    }
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use snowmint::{Id, Layout};

    /// A layout with a tick-tock bit (no preset has one yet).
    const TICK_TOCK: Layout = Layout::builder("tt", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    fn json(layout: &Layout, id: Id) -> String {
        let mut out = Vec::new();
        write_json(&mut out, &layout.decode(id).unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_has_a_tick_key_after_time_exactly_when_the_layout_has_the_bit() {
        for timeline in [0, 1] {
            let id = TICK_TOCK
                .compose_on_timeline(1_656_432_460_105, timeline, &[("machine", 378)], 9)
                .unwrap();
            assert_eq!(
                json(&TICK_TOCK, id),
                format!(
                    "{{\"id\":\"{id}\",\"layout\":\"tt\",\"timestamp_ms\":1656432460105,\
                     \"time\":\"2022-06-28T16:07:40.105Z\",\"tick\":{timeline},\"machine\":378,\
                     \"sequence\":9}}\n"
                )
            );
        }
        let id = Layout::TWITTER
            .compose(1_656_432_460_105, &[("machine", 378)], 9)
            .unwrap();
        assert!(!json(&Layout::TWITTER, id).contains("tick"));
    }
}
