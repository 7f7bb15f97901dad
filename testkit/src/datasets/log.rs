//! `log`: HTTP access-log records. Many short strings; the dataset for borrowed `&str` decoding.

use serde::{Deserialize, Serialize};

use crate::rng::Pcg32;

/// An IPv4 address as four octets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Address {
    /// First octet.
    pub x0: u8,
    /// Second octet.
    pub x1: u8,
    /// Third octet.
    pub x2: u8,
    /// Fourth octet.
    pub x3: u8,
}

/// One access-log line (common log format fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Log {
    /// Client address.
    pub address: Address,
    /// RFC 1413 identity, usually `-`.
    pub identity: String,
    /// Authenticated user, or `-`.
    pub userid: String,
    /// Timestamp in `10/Oct/2000:13:55:36 -0700` form.
    pub date: String,
    /// Request line, e.g. `GET /index.html HTTP/1.1`.
    pub request: String,
    /// HTTP status code.
    pub code: u16,
    /// Response size in bytes.
    pub size: u64,
}

/// The whole `log` dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Logs {
    /// The records.
    pub logs: Vec<Log>,
}

/// [`Log`] borrowing its strings from the input buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct BorrowedLog<'a> {
    /// Client address.
    pub address: Address,
    /// RFC 1413 identity.
    pub identity: &'a str,
    /// Authenticated user.
    pub userid: &'a str,
    /// Timestamp.
    pub date: &'a str,
    /// Request line.
    pub request: &'a str,
    /// HTTP status code.
    pub code: u16,
    /// Response size in bytes.
    pub size: u64,
}

/// [`Logs`] borrowing its strings from the input buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct BorrowedLogs<'a> {
    /// The records.
    #[serde(borrow)]
    pub logs: Vec<BorrowedLog<'a>>,
}

impl Logs {
    /// Compares with a borrowed decode of the same data.
    pub fn eq_borrowed(&self, other: &BorrowedLogs<'_>) -> bool {
        self.logs.len() == other.logs.len()
            && self.logs.iter().zip(&other.logs).all(|(a, b)| {
                a.address == b.address
                    && a.identity == b.identity
                    && a.userid == b.userid
                    && a.date == b.date
                    && a.request == b.request
                    && a.code == b.code
                    && a.size == b.size
            })
    }
}

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const METHODS: [&str; 5] = ["GET", "GET", "GET", "POST", "PUT"];
const PATH_WORDS: [&str; 12] =
    ["api", "v2", "assets", "img", "players", "match", "static", "index.html", "login", "feed", "logo.png", "stats"];
const CODES: [u16; 8] = [200, 200, 200, 200, 304, 404, 500, 301];

fn address(rng: &mut Pcg32) -> Address {
    Address { x0: rng.next_u32() as u8, x1: rng.next_u32() as u8, x2: rng.next_u32() as u8, x3: rng.next_u32() as u8 }
}

fn date(rng: &mut Pcg32) -> String {
    let zone = rng.range_i64(-12, 13);
    format!(
        "{:02}/{}/{}:{:02}:{:02}:{:02} {}{:02}00",
        rng.range(1, 29),
        rng.pick(&MONTHS),
        rng.range(1995, 2027),
        rng.below(24),
        rng.below(60),
        rng.below(60),
        if zone < 0 { '-' } else { '+' },
        zone.unsigned_abs(),
    )
}

fn request(rng: &mut Pcg32) -> String {
    let mut path = String::new();
    for _ in 0..rng.range(1, 5) {
        path.push('/');
        let word = *rng.pick(&PATH_WORDS);
        path.push_str(word);
    }
    if rng.chance(1, 3) {
        path.push_str("?id=");
        path.push_str(&rng.below(100_000).to_string());
    }
    format!("{} {} HTTP/1.{}", rng.pick(&METHODS), path, rng.below(2))
}

fn user(rng: &mut Pcg32) -> String {
    if rng.chance(1, 2) { "-".to_owned() } else { rng.ident(3, 12) }
}

/// Generates `count` access-log records from the dataset seed.
pub fn generate(count: usize) -> Logs {
    let mut rng = Pcg32::for_datasets();
    let logs = (0..count)
        .map(|_| Log {
            address: address(&mut rng),
            identity: user(&mut rng),
            userid: user(&mut rng),
            date: date(&mut rng),
            request: request(&mut rng),
            code: *rng.pick(&CODES),
            size: rng.below(100_000_000),
        })
        .collect();
    Logs { logs }
}
