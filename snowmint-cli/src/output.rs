//! Decoded IDs and bounds as printed: a line of text (`Display`) or a JSON object
//! (`Serialize`, written by serde_json), with the keys in a fixed order.

use std::fmt;
use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use snowmint::{Parts, encoding::Encoding, sno::SnoId};

/// Writes `value` as one line of JSON.
pub(crate) fn write_json_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// An ID decoded under its layout, echoed in the text form it was read in.
///
/// Text: `1ptWyK4WgZU (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=0)`, the
/// library's [`Parts`] `Display` with the ID in `form`.
///
/// JSON: `{"id":"…",["decimal":"…",]"layout":"…","unix_ms":…,"time":"…",["timeline":0|1,]
/// <node fields>,"sequence":…}`. `id` is in `form`, and `decimal` is there exactly when
/// `form` is not decimal; `timeline` (the tick-tock bit) exactly when the layout has one, as in the text form.
pub(crate) struct Decoded<'l> {
    pub(crate) form: Encoding,
    pub(crate) parts: Parts<'l>,
}

impl fmt::Display for Decoded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = &self.parts;
        write!(
            f,
            "{} ({} {}",
            self.form.encode(parts.id()),
            parts.layout().name(),
            parts.time_rfc3339()
        )?;
        if let Some(timeline) = parts.timeline() {
            write!(f, " timeline={timeline}")?;
        }
        for (name, value) in parts.nodes() {
            write!(f, " {name}={value}")?;
        }
        write!(f, " sequence={})", parts.sequence())
    }
}

impl Serialize for Decoded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let parts = &self.parts;
        // A map, not a struct: the node fields' names are the layout's.
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", self.form.encode(parts.id()).as_str())?;
        if self.form != Encoding::Decimal {
            // `Id` serializes as its decimal string.
            map.serialize_entry("decimal", &parts.id())?;
        }
        map.serialize_entry("layout", parts.layout().name())?;
        map.serialize_entry("unix_ms", &parts.unix_ms())?;
        map.serialize_entry("time", &Text(parts.time_rfc3339()))?;
        if let Some(timeline) = parts.timeline() {
            map.serialize_entry("timeline", &timeline)?;
        }
        for (name, value) in parts.nodes() {
            map.serialize_entry(name, &value)?;
        }
        map.serialize_entry("sequence", &parts.sequence())?;
        map.end()
    }
}

/// A sno ID, every component.
///
/// Text: `2222222222222222 (sno 2010-01-01T00:00:00.000Z timeline=0 meta=0 partition=0 sequence=0)`,
/// the tick-tock bit named `timeline` as for every layout.
///
/// JSON: `{"id":"…","layout":"sno","unix_ms":…,"time":"…","timeline":…,"meta":…,
/// "partition":…,"sequence":…}`.
pub(crate) struct Sno(pub(crate) SnoId);

impl fmt::Display for Sno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.0;
        write!(
            f,
            "{id} (sno {} timeline={} meta={} partition={} sequence={})",
            id.time_rfc3339(),
            id.timeline(),
            id.meta(),
            id.partition(),
            id.sequence()
        )
    }
}

impl Serialize for Sno {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let id = self.0;
        let mut object = serializer.serialize_struct("Sno", 8)?;
        object.serialize_field("id", &Text(id))?;
        object.serialize_field("layout", "sno")?;
        object.serialize_field("unix_ms", &id.unix_ms())?;
        object.serialize_field("time", &Text(id.time_rfc3339()))?;
        object.serialize_field("timeline", &id.timeline())?;
        object.serialize_field("meta", &id.meta())?;
        object.serialize_field("partition", &id.partition())?;
        object.serialize_field("sequence", &id.sequence())?;
        object.end()
    }
}

/// `bounds --json`: `{"layout":"…","unix_ms":…,"tick_start_ms":…,"tick_end_ms":…,
/// "lower":"…","upper":"…"}`: the time (a span's start, within the layout), the ticks holding
/// the span (the last one's end exclusive) and the bounds.
#[derive(Serialize)]
pub(crate) struct BoundsJson<'a> {
    pub(crate) layout: &'a str,
    pub(crate) unix_ms: u64,
    pub(crate) tick_start_ms: u64,
    pub(crate) tick_end_ms: u64,
    pub(crate) lower: &'a str,
    pub(crate) upper: &'a str,
}

/// Serializes its `Display` as a string, without allocating one.
struct Text<T>(T);

impl<T: fmt::Display> Serialize for Text<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
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

    fn json(value: &impl Serialize) -> String {
        let mut out = Vec::new();
        write_json_line(&mut out, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn decoded(layout: &Layout, form: Encoding, id: Id) -> Decoded<'_> {
        Decoded {
            form,
            parts: layout.decode(id).unwrap(),
        }
    }

    #[test]
    fn json_has_a_timeline_key_after_time_exactly_when_the_layout_has_the_bit() {
        for timeline in [0, 1] {
            let id = TICK_TOCK
                .compose_on_timeline(1_656_432_460_105, timeline, &[("machine", 378)], 9)
                .unwrap();
            assert_eq!(
                json(&decoded(&TICK_TOCK, Encoding::Decimal, id)),
                format!(
                    "{{\"id\":\"{id}\",\"layout\":\"tt\",\"unix_ms\":1656432460105,\
                     \"time\":\"2022-06-28T16:07:40.105Z\",\"timeline\":{timeline},\"machine\":378,\
                     \"sequence\":9}}\n"
                )
            );
        }
        let id = Layout::TWITTER
            .compose(1_656_432_460_105, &[("machine", 378)], 9)
            .unwrap();
        assert!(!json(&decoded(&Layout::TWITTER, Encoding::Decimal, id)).contains("timeline"));
    }

    #[test]
    fn json_echoes_the_form_read_and_adds_the_decimal_after_it() {
        let id = Id::from_u64(1_541_815_603_606_036_480);
        assert_eq!(
            json(&decoded(&Layout::TWITTER, Encoding::Base62, id)),
            "{\"id\":\"1ptWyK4WgZU\",\"decimal\":\"1541815603606036480\",\"layout\":\"twitter\",\
             \"unix_ms\":1656432460105,\"time\":\"2022-06-28T16:07:40.105Z\",\
             \"machine\":378,\"sequence\":0}\n"
        );
        for form in Encoding::ALL {
            let object: serde_json::Value =
                serde_json::from_str(&json(&decoded(&Layout::TWITTER, form, id))).unwrap();
            assert_eq!(object["id"], form.encode(id).as_str(), "{form}");
            let decimal = object.get("decimal");
            match form {
                Encoding::Decimal => assert_eq!(decimal, None),
                _ => assert_eq!(decimal.unwrap(), "1541815603606036480", "{form}"),
            }
        }
    }

    #[test]
    fn text_is_the_librarys_display_of_the_parts_with_the_id_in_its_form() {
        let cases = [
            (Layout::TWITTER, Id::from_u64(1_541_815_603_606_036_480)),
            (Layout::DISCORD, Id::from_u64(175_928_847_299_117_063)),
            (
                TICK_TOCK,
                TICK_TOCK
                    .compose_on_timeline(1_656_432_460_105, 1, &[("machine", 378)], 9)
                    .unwrap(),
            ),
        ];
        for (layout, id) in &cases {
            let library = layout.decode(*id).unwrap().to_string();
            let rest = library.strip_prefix(&id.to_string()).unwrap();
            assert_eq!(decoded(layout, Encoding::Decimal, *id).to_string(), library);
            for form in Encoding::ALL {
                let text = decoded(layout, form, *id).to_string();
                assert_eq!(text, format!("{}{rest}", form.encode(*id)), "{form}");
            }
        }
    }

    #[test]
    fn sno_text_and_json_list_every_component() {
        let id: SnoId = "2222222222222222".parse().unwrap();
        assert_eq!(
            Sno(id).to_string(),
            "2222222222222222 (sno 2010-01-01T00:00:00.000Z timeline=0 meta=0 partition=0 sequence=0)"
        );
        assert_eq!(
            json(&Sno(id)),
            "{\"id\":\"2222222222222222\",\"layout\":\"sno\",\"unix_ms\":1262304000000,\
             \"time\":\"2010-01-01T00:00:00.000Z\",\"timeline\":0,\"meta\":0,\"partition\":0,\
             \"sequence\":0}\n"
        );
    }

    #[test]
    fn bounds_json_keeps_its_key_order_and_escapes_the_layout_name() {
        let bounds = BoundsJson {
            layout: "a\"b\\c\n",
            unix_ms: 5,
            tick_start_ms: 0,
            tick_end_ms: 10,
            lower: "0",
            upper: "1",
        };
        assert_eq!(
            json(&bounds),
            "{\"layout\":\"a\\\"b\\\\c\\n\",\"unix_ms\":5,\"tick_start_ms\":0,\
             \"tick_end_ms\":10,\"lower\":\"0\",\"upper\":\"1\"}\n"
        );
    }
}
