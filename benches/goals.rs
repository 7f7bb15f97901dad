//! The open issues' speed goals, each measured as a paired ratio: the goal's two cells (ours and
//! its anchor) run in alternation, a batch of a few milliseconds of one, then of the other, and
//! the ratio of every such pair is kept.
//!
//! ```text
//! cargo bench --bench goals                        # every goal, about 4 s each
//! cargo bench --bench goals -- log/borrowed        # the goals whose line contains the text
//! GOALS_SECONDS=10 cargo bench --bench goals       # longer runs
//! ```
//!
//! Why pairs: criterion (`benches/formats.rs`) times one cell for seconds, then the next. On a
//! virtual machine whose speed drifts over seconds, the same cell of the same binary moved by up
//! to 1.44× between runs (BENCHMARKS.md, round 14), which decides nothing about a goal such as
//! "≤ 1.0× postcard". Here both cells of a goal see the machine within milliseconds of each
//! other and take turns going first, so slow drift cancels in each ratio. The result is the
//! median ratio over all pairs; the 10th–90th percentile range says how steady the run was.
//!
//! Each cell is the criterion rig's cell: the same data, the same reused buffers, the same
//! codec settings, and it round-trips before it is timed.
//!
//! One row is a reference, not a goal: issue 16.2's per-message decode by a hand-written decoder of
//! the Array form ([`rig::godot::floor`]), with no serde layer. It shows how close Godot's bytes let
//! a safe decoder come to bincode 1.3.3 through serde, and is reported, not judged.

#[path = "rig/mod.rs"]
mod rig;

use std::hint::black_box;
use std::time::{Duration, Instant};

use flatbuf_oracle::flatbuffers::FlatBufferBuilder;
use rig::anchors::{Bincode1, Postcard};
use rig::datasets::{BorrowedLogs, Mesh};
use rig::flatbuf::{FlatbufLite, build_logs, build_mesh, official_encode};
use rig::godot::{
    GodotArray, GodotDict, Packet, decode_each, decode_each_with, decode_packets, encode_each, encode_packets, packets,
};
use rig::{Codec, Datasets};

/// Work timed as one unit (one pass over a dataset).
type Cell<'a> = Box<dyn FnMut() + 'a>;

/// One goal of an issue: `ours` must take at most `line` times as long as `anchor`.
struct Goal<'a> {
    issue: &'static str,
    cell: &'static str,
    ours: &'static str,
    anchor: &'static str,
    line: f64,
    /// Not a goal of ours but a point of comparison (see `rig::godot::floor`): reported, not judged.
    reference: bool,
    run_ours: Cell<'a>,
    run_anchor: Cell<'a>,
}

impl Goal<'_> {
    fn label(&self) -> String {
        format!("{} {} {} ÷ {}", self.issue, self.cell, self.ours, self.anchor)
    }
}

/// What one goal's run measured.
struct Measured {
    pairs: usize,
    median: f64,
    p10: f64,
    p90: f64,
    ours_us: f64,
    anchor_us: f64,
}

/// Encodes `value` with `C` into a buffer the cell reuses.
fn encode_cell<'a, C: Codec, T: serde::Serialize>(value: &'a T) -> Cell<'a> {
    let mut buf = Vec::with_capacity(1 << 20);
    Box::new(move || {
        buf.clear();
        C::encode(black_box(value), &mut buf);
        black_box(buf.len());
    })
}

/// Encodes `value` with the official FlatBuffers builder into a buffer the cell reuses.
fn official_cell<'a, T>(value: &'a T, build: fn(&mut FlatBufferBuilder<'static>, &T)) -> Cell<'a> {
    let mut buf = Vec::with_capacity(1 << 20);
    Box::new(move || {
        buf.clear();
        official_encode(black_box(value), &mut buf, build);
        black_box(buf.len());
    })
}

/// Decodes `bytes` with `C` into an owned `T`.
fn decode_cell<C: Codec, T: for<'de> serde::Deserialize<'de>>(bytes: Vec<u8>) -> Cell<'static> {
    Box::new(move || drop(black_box(C::decode::<T>(black_box(&bytes)))))
}

/// Decodes `bytes` with `C` into the borrowing log.
fn borrowed_cell<C: Codec>(bytes: Vec<u8>) -> Cell<'static> {
    Box::new(move || drop(black_box(C::decode::<BorrowedLogs<'_>>(black_box(&bytes)))))
}

/// `packets_reused/serialize` (see [`encode_each`]).
fn packets_encode_cell<C: Codec>(msgs: &[Packet]) -> Cell<'_> {
    let mut buf = Vec::with_capacity(4096);
    Box::new(move || encode_each::<C>(black_box(msgs), &mut buf))
}

/// `packets_reused/deserialize` (see [`decode_each`]), after checking that the messages round-trip.
fn packets_decode_cell<C: Codec>(msgs: &[Packet]) -> Cell<'static> {
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    encode_packets::<C>(msgs, &mut all, &mut ends);
    assert!(decode_packets::<C>(&all, &ends) == msgs, "{} does not round-trip the packets", C::NAME);
    Box::new(move || decode_each::<C>(black_box(&all), &ends))
}

/// The goals of the open issues, their cells checked for an exact round-trip.
fn goals<'a>(data: &'a Datasets, msgs: &'a [Packet]) -> Vec<Goal<'a>> {
    rig::assert_round_trip::<FlatbufLite, _>("log", &data.log);
    rig::assert_round_trip::<FlatbufLite, _>("mesh", &data.mesh);
    rig::assert_round_trip::<Postcard, _>("mesh", &data.mesh);
    rig::assert_borrowed_round_trip::<FlatbufLite>(&data.log);
    rig::assert_borrowed_round_trip::<Postcard>(&data.log);
    rig::flatbuf::assert_official_rows(data);
    let goal = |issue, cell, ours, anchor, line, run_ours, run_anchor| Goal {
        issue,
        cell,
        ours,
        anchor,
        line,
        reference: false,
        run_ours,
        run_anchor,
    };
    let (lite, official, postcard) = (FlatbufLite::NAME, rig::flatbuf::OFFICIAL_ROW, Postcard::NAME);
    let mut goals = vec![
        goal(
            "13",
            "log/serialize",
            lite,
            official,
            1.2,
            encode_cell::<FlatbufLite, _>(&data.log),
            official_cell(&data.log, build_logs),
        ),
        goal(
            "13",
            "log/borrowed",
            lite,
            postcard,
            1.0,
            borrowed_cell::<FlatbufLite>(FlatbufLite::to_vec(&data.log)),
            borrowed_cell::<Postcard>(Postcard::to_vec(&data.log)),
        ),
        goal(
            "13",
            "mesh/serialize",
            lite,
            official,
            1.2,
            encode_cell::<FlatbufLite, _>(&data.mesh),
            official_cell(&data.mesh, build_mesh),
        ),
        goal(
            "13",
            "mesh/deserialize",
            lite,
            postcard,
            1.5,
            decode_cell::<FlatbufLite, Mesh>(FlatbufLite::to_vec(&data.mesh)),
            decode_cell::<Postcard, Mesh>(Postcard::to_vec(&data.mesh)),
        ),
    ];
    goals.extend(message_goals::<GodotDict>(msgs));
    goals.extend(message_goals::<GodotArray>(msgs));
    goals.push(Goal {
        reference: true,
        ..goal(
            "16.2",
            "packets_reused/deserialize",
            "hand-written Array decoder (reference)",
            Bincode1::NAME,
            1.5,
            packets_floor_cell(msgs),
            packets_decode_cell::<Bincode1>(msgs),
        )
    });
    goals
}

/// `packets_reused/deserialize` with [`rig::godot::floor`], the hand-written Array-form decoder, after
/// checking that it reads every message as serde-godot encodes it.
fn packets_floor_cell(msgs: &[Packet]) -> Cell<'static> {
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    encode_packets::<GodotArray>(msgs, &mut all, &mut ends);
    let mut start = 0;
    for (m, &end) in msgs.iter().zip(&ends) {
        assert!(rig::godot::floor::decode(&all[start..end]).as_ref() == Some(m), "the hand-written decoder differs");
        start = end;
    }
    Box::new(move || {
        decode_each_with(black_box(&all), &ends, |m| rig::godot::floor::decode(m).expect("an Array-form message"))
    })
}

/// Issue 16.2's two goals for the struct form of `C`: per message, encode and decode at most 1.5×
/// bincode 1.3.3's.
fn message_goals<'a, C: Codec>(msgs: &'a [Packet]) -> [Goal<'a>; 2] {
    let goal = |cell, run_ours, run_anchor| Goal {
        issue: "16.2",
        cell,
        ours: C::NAME,
        anchor: Bincode1::NAME,
        line: 1.5,
        reference: false,
        run_ours,
        run_anchor,
    };
    [
        goal("packets_reused/serialize", packets_encode_cell::<C>(msgs), packets_encode_cell::<Bincode1>(msgs)),
        goal("packets_reused/deserialize", packets_decode_cell::<C>(msgs), packets_decode_cell::<Bincode1>(msgs)),
    ]
}

/// Seconds per `cell` call, over `n` calls.
fn timed(cell: &mut dyn FnMut(), n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        cell();
    }
    start.elapsed().as_secs_f64() / f64::from(n)
}

/// How many calls of `cell` make a batch of about `batch`, after `warm_up` of calls.
fn batch_size(cell: &mut dyn FnMut(), warm_up: Duration, batch: Duration) -> u32 {
    let start = Instant::now();
    let mut calls = 0u32;
    while start.elapsed() < warm_up || calls == 0 {
        cell();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / f64::from(calls);
    (batch.as_secs_f64() / per_call).ceil().clamp(1.0, 1e6) as u32
}

/// The `q` quantile of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Runs `goal`'s two cells in alternating batches for `seconds` (at least 20 pairs).
fn measure(goal: &mut Goal<'_>, seconds: f64) -> Measured {
    let (warm_up, batch) = (Duration::from_millis(300), Duration::from_millis(3));
    let n_ours = batch_size(&mut goal.run_ours, warm_up, batch);
    let n_anchor = batch_size(&mut goal.run_anchor, warm_up, batch);
    let (mut ratios, mut ours, mut anchor) = (Vec::new(), Vec::new(), Vec::new());
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds || ratios.len() < 20 {
        let (a, b) = if ratios.len() % 2 == 0 {
            let a = timed(&mut goal.run_ours, n_ours);
            (a, timed(&mut goal.run_anchor, n_anchor))
        } else {
            let b = timed(&mut goal.run_anchor, n_anchor);
            (timed(&mut goal.run_ours, n_ours), b)
        };
        ratios.push(a / b);
        ours.push(a);
        anchor.push(b);
    }
    for v in [&mut ratios, &mut ours, &mut anchor] {
        v.sort_by(f64::total_cmp);
    }
    Measured {
        pairs: ratios.len(),
        median: quantile(&ratios, 0.5),
        p10: quantile(&ratios, 0.1),
        p90: quantile(&ratios, 0.9),
        ours_us: quantile(&ours, 0.5) * 1e6,
        anchor_us: quantile(&anchor, 0.5) * 1e6,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; other words select goals by substring.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let seconds = std::env::var("GOALS_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(4.0);
    let data = Datasets::generate(1.0);
    let msgs = packets(rig::godot::PACKETS);
    let mut goals = goals(&data, &msgs);
    goals.retain(|g| filters.is_empty() || filters.iter().any(|f| g.label().contains(f.as_str())));

    println!("| issue | cell | ours ÷ anchor | goal | median ratio | p10–p90 | ours µs | anchor µs | pairs | met |");
    println!("|---|---|---|--:|--:|--:|--:|--:|--:|---|");
    for goal in &mut goals {
        let m = measure(goal, seconds);
        println!(
            "| {} | {} | {} ÷ {} | ≤ {:.1}× | {:.3}× | {:.3}–{:.3} | {:.1} | {:.1} | {} | {} |",
            goal.issue,
            goal.cell,
            goal.ours,
            goal.anchor,
            goal.line,
            m.median,
            m.p10,
            m.p90,
            m.ours_us,
            m.anchor_us,
            m.pairs,
            match (goal.reference, m.median <= goal.line) {
                (true, true) => "(reference: under)",
                (true, false) => "(reference: over)",
                (false, true) => "yes",
                (false, false) => "no",
            },
        );
    }
}
