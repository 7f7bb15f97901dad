//! `AZ::Color`: every JSON form O3DE's color serializer reads.

use serde_core::{Serialize, Serializer};

use super::{Input, Items, Json, Loaded, Native};
use crate::channel;
use crate::coerce::{Num, Tok};
use crate::report::Outcome;

/// An RGBA color with float channels (`AZ::Color`).
///
/// Written as `[r, g, b, a]` (alpha left out when it equals the default's). Read from:
///
/// | JSON | channels |
/// |---|---|
/// | `[r, g, b]` / `[r, g, b, a, …]` | JSON doubles (`1.0`, not `1`: O3DE rejects integer literals); 3 keep the current alpha |
/// | `{"RGB": [..3]}` / `{"RGBA": [..4]}` | the same float arrays, names case-insensitive |
/// | `{"RGB8": [255, 51, 204]}` / `{"RGBA8": [..4]}` | integers clamped to 0..=255, divided by 255 |
/// | `{"HEX": "FF33CC"}` / `{"HEXA": "FF33CC99"}` | the first 6 / 8 hex digits, `RRGGBB(AA)`, no `#` |
///
/// In an object the *last* recognised key wins. `{}` is the zero color; anything else is
/// Unsupported and leaves the color as it was.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Color {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Alpha.
    pub a: f32,
}

impl Color {
    /// A color from its channels.
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Color {
        Color { r, g, b, a }
    }

    /// The channels as `[r, g, b, a]`.
    pub const fn to_array(self) -> [f32; 4] {
        [self.r, self.g, self.b, self.a]
    }

    fn set(&mut self, channels: &[f32]) {
        self.r = channels[0];
        self.g = channels[1];
        self.b = channels[2];
        if let Some(&a) = channels.get(3) {
            self.a = a;
        }
    }
}

impl From<[f32; 4]> for Color {
    fn from([r, g, b, a]: [f32; 4]) -> Self {
        Color { r, g, b, a }
    }
}

/// Reads `n` float channels: each element must be a JSON double (unless strictness is off).
fn floats(items: &Items<'_>, n: usize) -> Result<[f32; 4], Loaded> {
    let strict = channel::strict_doubles();
    let mut out = [0.0; 4];
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        let v = match items.get(i) {
            Tok::Num(Num::F(f)) => f,
            Tok::Num(n) if !strict => n.as_f64(),
            // JSON has no NaN or infinities; this crate's store writes them as these strings.
            Tok::Str("NaN") => f64::NAN,
            Tok::Str("Infinity") => f64::INFINITY,
            Tok::Str("-Infinity") => f64::NEG_INFINITY,
            other => {
                return Err(Loaded::new(
                    Outcome::Unsupported,
                    format!("color channel {i} must be a floating point number, not {}", other.describe()),
                ));
            }
        };
        *slot = v as f32;
    }
    Ok(out)
}

/// Reads `n` integer channels (clamped to 0..=255) as fractions of 255.
fn bytes(items: &Items<'_>, n: usize) -> Result<[f32; 4], Loaded> {
    let mut out = [0.0; 4];
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        let v = match items.get(i) {
            Tok::Num(Num::U(u)) => u.min(255) as f32,
            Tok::Num(Num::I(_)) => 0.0,
            other => {
                return Err(Loaded::new(
                    Outcome::Unsupported,
                    format!("8-bit color channel {i} must be an integer, not {}", other.describe()),
                ));
            }
        };
        *slot = v / 255.0;
    }
    Ok(out)
}

/// Reads `n` hex channel pairs from the start of `text`.
fn hex(text: &str, n: usize) -> Result<[f32; 4], Loaded> {
    let b = text.as_bytes();
    if b.len() < 2 * n {
        return Err(Loaded::new(
            Outcome::Unsupported,
            format!("a hex color needs {} digits, \"{text}\" is too short", 2 * n),
        ));
    }
    let mut out = [0.0; 4];
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        let pair = std::str::from_utf8(&b[2 * i..2 * i + 2]).ok();
        let v = pair.filter(|p| p.bytes().all(|c| c.is_ascii_hexdigit())).and_then(|p| u8::from_str_radix(p, 16).ok());
        match v {
            Some(v) => *slot = f32::from(v) / 255.0,
            None => {
                return Err(Loaded::new(
                    Outcome::Unsupported,
                    format!("\"{}\" is not a hex color", crate::coerce::clip(text)),
                ));
            }
        }
    }
    Ok(out)
}

fn array_items(json: &Json) -> Option<Items<'_>> {
    match json {
        Json::Arr(items) => Some(Items::Json(items)),
        _ => None,
    }
}

impl Native for Color {
    const NAME: &'static str = "$serde_o3de::Native::Color";
    const WHAT: &'static str = "a color";

    fn load(&mut self, input: &Input<'_>) -> Loaded {
        let r = match input {
            Input::Array(items) => {
                if items.len() < 3 {
                    return Loaded::new(Outcome::Unsupported, "a color array needs at least 3 channels");
                }
                let n = items.len().min(4);
                floats(items, n).map(|c| {
                    self.set(&c[..n]);
                    if n == 3 {
                        Loaded::new(Outcome::PartialDefaults, "Color loaded from 3 channels; alpha kept")
                    } else {
                        Loaded::new(Outcome::Success, "Color loaded")
                    }
                })
            }
            Input::Other(Json::Obj(members)) if members.is_empty() => {
                *self = Color::default();
                return Loaded::new(Outcome::DefaultsUsed, "Zero color used for an explicit default");
            }
            Input::Other(Json::Obj(members)) => {
                const KEYS: [&str; 6] = ["RGBA8", "RGB8", "RGBA", "RGB", "HEXA", "HEX"];
                let found = members
                    .iter()
                    .rev()
                    .find_map(|(k, v)| KEYS.iter().position(|key| key.eq_ignore_ascii_case(k)).map(|i| (KEYS[i], v)));
                let Some((key, value)) = found else {
                    return Loaded::new(
                        Outcome::Unsupported,
                        "a color object needs one of RGB, RGBA, RGB8, RGBA8, HEX or HEXA",
                    );
                };
                let loaded = match key {
                    "RGB" | "RGBA" | "RGB8" | "RGBA8" => {
                        let n = if key.starts_with("RGBA") { 4 } else { 3 };
                        match array_items(value) {
                            Some(items) if items.len() >= n => {
                                if key.ends_with('8') { bytes(&items, n) } else { floats(&items, n) }.map(|c| (c, n))
                            }
                            Some(_) => {
                                Err(Loaded::new(Outcome::Unsupported, format!("\"{key}\" needs at least {n} channels")))
                            }
                            None => Err(Loaded::new(
                                Outcome::Unsupported,
                                format!("\"{key}\" must be an array, not {}", value.kind()),
                            )),
                        }
                    }
                    _ => {
                        let n = if key == "HEXA" { 4 } else { 3 };
                        match value {
                            Json::Str(text) => hex(text, n).map(|c| (c, n)),
                            other => Err(Loaded::new(
                                Outcome::Unsupported,
                                format!("\"{key}\" must be a string, not {}", other.kind()),
                            )),
                        }
                    }
                };
                loaded.map(|(c, n)| {
                    self.set(&c[..n]);
                    Loaded::new(Outcome::Success, format!("Color loaded from \"{key}\""))
                })
            }
            Input::Other(other) => {
                return Loaded::new(Outcome::Unsupported, format!("a color can't be read from {}", other.kind()));
            }
        };
        r.unwrap_or_else(|failure| failure)
    }
}

super::native_deserialize!(Color);

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(<Color as Native>::NAME, &self.to_array())
    }
}
