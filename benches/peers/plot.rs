//! A line plot as SVG, written by hand: the scaling figures against the thread count, on a
//! log2 axis, the thread counts beyond the machine's cores shaded and drawn hollow.

use std::fmt::Write as _;

use crate::summary::Series;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 440.0;
/// The plotting area's edges.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 540.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 390.0;
/// One colour per series, in order (the Okabe–Ito palette, told apart by colour-blind readers).
const COLOURS: [&str; 7] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#000000",
];

/// `series` (figures in M IDs/s) against the thread count, `title` above, `stamp` below it.
pub fn lines(series: &[Series], cores: usize, title: &str, stamp: &str) -> String {
    let mut threads: Vec<usize> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|&(t, _)| t))
        .collect();
    threads.sort_unstable();
    threads.dedup();
    let log2 = |t: usize| (t.max(1) as f64).log2();
    let (x_low, x_high) = match (threads.first(), threads.last()) {
        (Some(&low), Some(&high)) if high > low => (log2(low), log2(high)),
        (Some(&low), _) => (log2(low) - 1.0, log2(low) + 1.0),
        _ => (0.0, 1.0),
    };
    let x = |t: usize| LEFT + (log2(t) - x_low) / (x_high - x_low) * (RIGHT - LEFT);
    let highest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|&(_, f)| f))
        .fold(0.0_f64, f64::max);
    let (step, y_high) = axis(highest);
    let y = |f: f64| BOTTOM - f / y_high * (BOTTOM - TOP);

    let mut svg = String::new();
    // Writing to a `String` cannot fail: the results below are ignored.
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="24" font-size="15">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="42" font-size="10" fill="#555555">{}</text>"##,
        escape(stamp)
    );
    // The oversubscribed thread counts: shaded from halfway past the last within the cores.
    if let Some(&first_over) = threads.iter().find(|&&t| t > cores) {
        let within = threads.iter().rev().find(|&&t| t <= cores);
        let from = within.map_or(LEFT, |&t| (x(t) + x(first_over)) / 2.0);
        let _ = writeln!(
            svg,
            r##"<rect x="{from:.1}" y="{TOP}" width="{:.1}" height="{:.1}" fill="#eeeeee"/>"##,
            RIGHT + 10.0 - from,
            BOTTOM - TOP
        );
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#555555">oversubscribed: more threads than the {cores} cores</text>"##,
            from + 4.0,
            TOP + 12.0
        );
    }
    // Axes, gridlines and labels.
    let mut tick = 0.0;
    while tick <= y_high + step / 2.0 {
        let at = y(tick);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{at:.1}" x2="{:.1}" y2="{at:.1}" stroke="#cccccc" stroke-width="0.5"/>"##,
            RIGHT + 10.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            at + 4.0,
            figure(tick)
        );
        tick += step;
    }
    for &t in &threads {
        let at = x(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{at:.1}" y1="{BOTTOM}" x2="{at:.1}" y2="{:.1}" stroke="#000000"/>"##,
            BOTTOM + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{at:.1}" y="{:.1}" text-anchor="middle">{t}</text>"#,
            BOTTOM + 18.0
        );
    }
    let _ = writeln!(
        svg,
        r##"<polyline points="{LEFT},{TOP} {LEFT},{BOTTOM} {:.1},{BOTTOM}" fill="none" stroke="#000000"/>"##,
        RIGHT + 10.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">threads (log2 scale)</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 38.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">aggregate M IDs/s</text>"#,
        (TOP + BOTTOM) / 2.0,
        (TOP + BOTTOM) / 2.0
    );
    // The series: a line through the medians, a dot at each (hollow where oversubscribed),
    // and a legend entry.
    for (k, s) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let mut points = s.points.clone();
        points.sort_by_key(|&(t, _)| t);
        let path: Vec<String> = points
            .iter()
            .map(|&(t, f)| format!("{:.1},{:.1}", x(t), y(f)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for &(t, f) in &points {
            let fill = if t > cores { "#ffffff" } else { colour };
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{fill}" stroke="{colour}" stroke-width="2"><title>{}: {t} threads, {f:.0} M IDs/s</title></circle>"#,
                x(t),
                y(f),
                escape(&s.name)
            );
        }
        let at = TOP + 10.0 + 20.0 * k as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{:.1}" y1="{at:.1}" x2="{:.1}" y2="{at:.1}" stroke="{colour}" stroke-width="2"/>"#,
            RIGHT + 30.0,
            RIGHT + 52.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            RIGHT + 58.0,
            at + 4.0,
            escape(&s.name)
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#555555">hollow: oversubscribed</text>"##,
        RIGHT + 30.0,
        TOP + 14.0 + 20.0 * series.len() as f64
    );
    svg.push_str("</svg>\n");
    svg
}

/// A gridline step of 1, 2 or 5 times a power of ten giving about five lines up to
/// `highest`, and the axis's top: the first step at or above it.
fn axis(highest: f64) -> (f64, f64) {
    if highest <= 0.0 || !highest.is_finite() {
        return (1.0, 5.0);
    }
    let rough = highest / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&step| step >= rough)
        .unwrap_or(10.0 * power);
    (step, (highest / step).ceil() * step)
}

/// A gridline's figure, without decimals where it has none.
fn figure(value: f64) -> String {
    if value.fract().abs() < 1e-9 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// `text` with XML's special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One horizontal bar per `(row, figure in ns)`, on a log10 axis (the figures span tens of ns
/// to a second), `title` above, `stamp` below it.
pub fn bars(rows: &[(String, f64)], title: &str, stamp: &str) -> String {
    const BAR: f64 = 16.0;
    const WIDTH: f64 = 900.0;
    const LABEL: f64 = 400.0;
    const PLOT_RIGHT: f64 = 800.0;
    let height = TOP + BAR * rows.len() as f64 + 50.0;
    let decades = |ns: f64| ns.max(1.0).log10();
    let highest = rows
        .iter()
        .map(|&(_, f)| decades(f))
        .fold(1.0_f64, f64::max);
    let x_high = highest.ceil();
    let x = |ns: f64| LABEL + decades(ns) / x_high * (PLOT_RIGHT - LABEL);
    let bottom = TOP + BAR * rows.len() as f64;

    let mut svg = String::new();
    // Writing to a `String` cannot fail: the results below are ignored.
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="10" y="24" font-size="15">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        svg,
        r##"<text x="10" y="42" font-size="10" fill="#555555">{}</text>"##,
        escape(stamp)
    );
    // A gridline and a label per decade.
    for decade in 0..=x_high as u32 {
        let at = x(10f64.powi(decade as i32));
        let _ = writeln!(
            svg,
            r##"<line x1="{at:.1}" y1="{TOP}" x2="{at:.1}" y2="{bottom:.1}" stroke="#cccccc" stroke-width="0.5"/>"##
        );
        let label = match decade {
            0..=2 => format!("{} ns", 10u64.pow(decade)),
            3..=5 => format!("{} µs", 10u64.pow(decade - 3)),
            6..=8 => format!("{} ms", 10u64.pow(decade - 6)),
            _ => format!("{} s", 10u64.pow(decade - 9)),
        };
        let _ = writeln!(
            svg,
            r#"<text x="{at:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#,
            bottom + 16.0
        );
    }
    // One colour per group of rows: the part of a row's name before its first `:`.
    let mut groups: Vec<&str> = Vec::new();
    for (k, (row, figure)) in rows.iter().enumerate() {
        let top = TOP + BAR * k as f64;
        let group = row.split(':').next().unwrap_or(row);
        let index = groups.iter().position(|&g| g == group).unwrap_or_else(|| {
            groups.push(group);
            groups.len() - 1
        });
        let colour = COLOURS[index % COLOURS.len()];
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LABEL - 6.0,
            top + BAR - 4.0,
            escape(row)
        );
        let _ = writeln!(
            svg,
            r#"<rect x="{LABEL}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}: {figure:.0} ns</title></rect>"#,
            top + 2.0,
            x(*figure) - LABEL,
            BAR - 4.0,
            escape(row)
        );
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#555555">{figure:.0} ns</text>"##,
            x(*figure) + 4.0,
            top + BAR - 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">p99.9 of a call (log scale)</text>"#,
        (LABEL + PLOT_RIGHT) / 2.0,
        bottom + 34.0
    );
    svg.push_str("</svg>\n");
    svg
}
