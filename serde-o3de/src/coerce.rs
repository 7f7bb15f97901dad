//! O3DE's primitive coercions, independent of serde: C `strtoll`/`strtoull`/`strtod` prefix parsing
//! (base prefixes, trailing text ignored, no clamping), range checks with truncation toward zero,
//! and `printf("%f")` formatting. See the crate README's coercion table.

use std::borrow::Cow;

use crate::report::Outcome;

/// A JSON number as rapidjson classifies it: integers that fit 64 bits stay integers, everything
/// with a fraction or exponent (or too big for 64 bits) is a double.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// A non-negative integer.
    U(u64),
    /// A negative integer.
    I(i64),
    /// A double (rapidjson `IsDouble`).
    F(f64),
}

impl Num {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::U(u) => u as f64,
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }

    pub(crate) fn from_json(n: &serde_json::Number) -> Num {
        if let Some(u) = n.as_u64() {
            Num::U(u)
        } else if let Some(i) = n.as_i64() {
            Num::I(i)
        } else {
            Num::F(n.as_f64().unwrap_or(f64::NAN))
        }
    }
}

/// The JSON value a scalar target sees (containers only by kind: their content never converts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tok<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(&'a str),
    Array,
    /// A non-empty object.
    Object,
    /// `{}`: the explicit default.
    EmptyObject,
}

impl Tok<'_> {
    /// A short description of the JSON value for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Null => "null".to_owned(),
            Tok::Bool(b) => b.to_string(),
            Tok::Num(Num::U(u)) => u.to_string(),
            Tok::Num(Num::I(i)) => i.to_string(),
            Tok::Num(Num::F(f)) => format!("{f:?}"),
            Tok::Str(s) => {
                let mut cut: String = s.chars().take(64).collect();
                if cut.len() < s.len() {
                    cut.push('…');
                }
                format!("string \"{cut}\"")
            }
            Tok::Array => "an array".to_owned(),
            Tok::Object => "an object".to_owned(),
            Tok::EmptyObject => "{}".to_owned(),
        }
    }
}

/// What a coercion produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Coerced<T> {
    /// Converted (outcome Success).
    Ok(T),
    /// `{}`: the target keeps (or gets) its default (outcome DefaultsUsed).
    Default,
    /// Not convertible: the target is left untouched.
    Fail(Outcome, String),
}

fn unsupported<T>(message: String) -> Coerced<T> {
    Coerced::Fail(Outcome::Unsupported, message)
}

/// C `isspace` in the C locale.
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Reads an optional `+` or `-` at `b[*i]`; returns whether it was `-`.
pub(crate) fn sign(b: &[u8], i: &mut usize) -> bool {
    match b.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

/// The result of a `strtoll(s, &end, 0)`-style scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntPrefix {
    /// A `-` sign was read.
    pub(crate) negative: bool,
    /// The magnitude (meaningless when `overflow`).
    pub(crate) magnitude: u128,
    /// The digits did not fit 128 bits.
    pub(crate) overflow: bool,
}

/// Scans like C `strtoll(s, &end, 0)`: optional whitespace, sign, `0x`/`0X` (hex) or `0` (octal)
/// prefix, digits; everything after the digits is ignored. `None` when no digit was consumed.
pub(crate) fn int_prefix(s: &str) -> Option<IntPrefix> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let negative = sign(b, &mut i);
    let base: u32 = if b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        i += 2;
        16
    } else if b.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let start = i;
    let mut magnitude: u128 = 0;
    let mut overflow = false;
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(base)) {
        match magnitude.checked_mul(u128::from(base)).and_then(|m| m.checked_add(u128::from(d))) {
            Some(m) => magnitude = m,
            None => overflow = true,
        }
        i += 1;
    }
    (i > start).then_some(IntPrefix { negative, magnitude, overflow })
}

/// An integer target type.
pub(crate) trait Int: Copy {
    const MIN: i128;
    const MAX: i128;
    const NAME: &'static str;
    const SIGNED: bool;
    fn from_i128(v: i128) -> Self;
}

macro_rules! int_impl {
    ($($t:ty, $signed:expr;)*) => {$(
        impl Int for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            const NAME: &'static str = stringify!($t);
            const SIGNED: bool = $signed;
            fn from_i128(v: i128) -> Self {
                v as $t
            }
        }
    )*};
}
int_impl! { i8, true; i16, true; i32, true; i64, true; u8, false; u16, false; u32, false; u64, false; }

fn fits<T: Int>(v: i128) -> Option<T> {
    (T::MIN..=T::MAX).contains(&v).then(|| T::from_i128(v))
}

/// An integer from a string: `strtoll` (signed targets) or `strtoull` with negative values
/// rejected (unsigned targets), then a range check without clamping.
pub(crate) fn int_from_str<T: Int>(s: &str) -> Coerced<T> {
    let Some(p) = int_prefix(s) else {
        return unsupported(format!("\"{}\" does not start with an integer", clip(s)));
    };
    let limit: u128 = if T::SIGNED && p.negative {
        1 << 63
    } else if T::SIGNED {
        i64::MAX as u128
    } else {
        u64::MAX as u128
    };
    if p.overflow || p.magnitude > limit {
        return unsupported(format!("\"{}\" is out of range for a 64-bit integer", clip(s)));
    }
    if !T::SIGNED && p.negative && p.magnitude != 0 {
        return unsupported(format!("\"{}\" is negative; {} is unsigned", clip(s), T::NAME));
    }
    let v = if p.negative { -(p.magnitude as i128) } else { p.magnitude as i128 };
    match fits::<T>(v) {
        Some(t) => Coerced::Ok(t),
        None => unsupported(format!("{v} does not fit in {}", T::NAME)),
    }
}

/// An integer from a double: range-checked against the target's limits, then truncated toward zero.
pub(crate) fn int_from_f64<T: Int>(v: f64) -> Coerced<T> {
    // Checking the untruncated value against the limits is what O3DE does (12.9 fits an int, 127.5
    // does not fit an int8). The i128 detour rejects values that only pass because the 64-bit
    // limits round up as doubles.
    if v >= T::MIN as f64 && v <= T::MAX as f64 {
        if let Some(t) = fits::<T>(v.trunc() as i128) {
            return Coerced::Ok(t);
        }
    }
    unsupported(format!("{v:?} does not fit in {}", T::NAME))
}

/// An integer target from any JSON value (O3DE's integer serializer).
pub(crate) fn to_int<T: Int>(tok: &Tok<'_>) -> Coerced<T> {
    match *tok {
        Tok::Bool(b) => Coerced::Ok(T::from_i128(i128::from(b))),
        Tok::Num(Num::U(u)) => match fits::<T>(i128::from(u)) {
            Some(t) => Coerced::Ok(t),
            None => unsupported(format!("{u} does not fit in {}", T::NAME)),
        },
        Tok::Num(Num::I(i)) => match fits::<T>(i128::from(i)) {
            Some(t) => Coerced::Ok(t),
            None => unsupported(format!("{i} does not fit in {}", T::NAME)),
        },
        Tok::Num(Num::F(f)) => int_from_f64(f),
        Tok::Str(s) => int_from_str(s),
        Tok::EmptyObject => Coerced::Default,
        _ => unsupported(format!("{} cannot be read as an integer", tok.describe())),
    }
}

/// A 128-bit integer target: like [`to_int`] with 128-bit limits (an extension: O3DE has no
/// 128-bit integers).
pub(crate) fn to_i128(tok: &Tok<'_>, signed: bool) -> Coerced<i128> {
    let (min, max) = if signed { (i128::MIN as f64, i128::MAX as f64) } else { (0.0, u128::MAX as f64) };
    match *tok {
        Tok::Bool(b) => Coerced::Ok(i128::from(b)),
        Tok::Num(Num::U(u)) => Coerced::Ok(i128::from(u)),
        Tok::Num(Num::I(i)) if signed => Coerced::Ok(i128::from(i)),
        Tok::Num(Num::F(f)) if f >= min && f < max => Coerced::Ok(f.trunc() as i128),
        Tok::Str(s) => match int_prefix(s) {
            Some(p) if !(p.overflow || (p.negative && !signed && p.magnitude != 0)) => {
                let limit = if !signed {
                    u128::MAX
                } else if p.negative {
                    1 << 127
                } else {
                    i128::MAX as u128
                };
                if p.magnitude > limit {
                    unsupported(format!("\"{}\" is out of range", clip(s)))
                } else if p.negative {
                    Coerced::Ok((p.magnitude as i128).wrapping_neg())
                } else {
                    // u128 values above i128::MAX travel as their bit pattern; the caller reinterprets.
                    Coerced::Ok(p.magnitude as i128)
                }
            }
            _ => unsupported(format!("\"{}\" is not a valid integer", clip(s))),
        },
        Tok::EmptyObject => Coerced::Default,
        _ => unsupported(format!("{} cannot be read as an integer", tok.describe())),
    }
}

/// A bool target (O3DE's bool serializer): non-zero numbers are true; strings match `true`/`false`
/// case-insensitively or are parsed with `strtoll` (digits must be consumed).
pub(crate) fn to_bool(tok: &Tok<'_>) -> Coerced<bool> {
    match *tok {
        Tok::Bool(b) => Coerced::Ok(b),
        Tok::Num(n) => Coerced::Ok(match n {
            Num::U(u) => u != 0,
            Num::I(i) => i != 0,
            Num::F(f) => f != 0.0,
        }),
        Tok::Str(s) if s.eq_ignore_ascii_case("true") => Coerced::Ok(true),
        Tok::Str(s) if s.eq_ignore_ascii_case("false") => Coerced::Ok(false),
        Tok::Str(s) => match int_prefix(s) {
            // An overflowing strtoll still returns a non-zero value (LLONG_MAX/MIN).
            Some(p) => Coerced::Ok(p.overflow || p.magnitude != 0),
            None => unsupported(format!("\"{}\" is neither true, false nor a number", clip(s))),
        },
        Tok::EmptyObject => Coerced::Default,
        _ => unsupported(format!("{} cannot be read as a boolean", tok.describe())),
    }
}

/// Why a `strtod` scan failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrtodError {
    /// No number at the start of the text.
    NoDigits,
    /// `ERANGE`: overflow or underflow.
    Range,
}

/// Scans like C `strtod` in the C locale: whitespace, sign, then `inf`/`infinity`, `nan`/`nan(...)`,
/// a hex float (`0x1.8p3`) or a decimal number; the longest valid prefix wins and the rest is
/// ignored. Overflow, and underflow to zero or a subnormal (glibc sets `ERANGE` there), are errors.
pub(crate) fn strtod(s: &str) -> Result<f64, StrtodError> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let body = i;
    let negative = sign(b, &mut i);
    let sign = if negative { -1.0 } else { 1.0 };
    let rest = &b[i..];
    if starts_with_ignore_case(rest, b"inf") {
        return Ok(sign * f64::INFINITY);
    }
    if starts_with_ignore_case(rest, b"nan") {
        return Ok(f64::NAN);
    }
    if rest.len() > 2 && rest[0] == b'0' && matches!(rest[1], b'x' | b'X') {
        if let Some(v) = hex_float(&rest[2..]) {
            return range_checked(sign * v.0, v.1);
        }
    }
    // Decimal: digits [. digits] with at least one digit, then an exponent only if it has digits.
    let mut j = i;
    let mut nonzero = false;
    let mut digits = 0;
    while j < b.len() && b[j].is_ascii_digit() {
        nonzero |= b[j] != b'0';
        digits += 1;
        j += 1;
    }
    if b.get(j) == Some(&b'.') {
        j += 1;
        while j < b.len() && b[j].is_ascii_digit() {
            nonzero |= b[j] != b'0';
            digits += 1;
            j += 1;
        }
    }
    if digits == 0 {
        return Err(StrtodError::NoDigits);
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if b.get(k).is_some_and(u8::is_ascii_digit) {
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // The prefix is ASCII by construction and follows Rust's float grammar.
    let v: f64 = s[body..j].parse().map_err(|_| StrtodError::NoDigits)?;
    range_checked(v, nonzero)
}

fn range_checked(v: f64, nonzero: bool) -> Result<f64, StrtodError> {
    if v.is_infinite() || (nonzero && (v == 0.0 || v.is_subnormal())) { Err(StrtodError::Range) } else { Ok(v) }
}

fn starts_with_ignore_case(b: &[u8], prefix: &[u8]) -> bool {
    b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The value of a hex float body (after `0x`) and whether its mantissa is non-zero; `None` when
/// no hex digit follows (then strtod reads just the `0`).
fn hex_float(b: &[u8]) -> Option<(f64, bool)> {
    let mut i = 0;
    let mut mantissa: u64 = 0;
    let mut exp2: i64 = 0;
    let mut digits = 0;
    let mut sticky = false;
    let mut seen_dot = false;
    loop {
        match b.get(i) {
            Some(&c) if c.is_ascii_hexdigit() => {
                let d = u64::from((c as char).to_digit(16).unwrap_or(0));
                if mantissa >> 60 == 0 {
                    mantissa = mantissa << 4 | d;
                    if seen_dot {
                        exp2 -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !seen_dot {
                        exp2 += 4;
                    }
                }
                digits += 1;
            }
            Some(b'.') if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'p' | b'P')) {
        let mut k = i + 1;
        let negative = sign(b, &mut k);
        if b.get(k).is_some_and(u8::is_ascii_digit) {
            let mut e: i64 = 0;
            while let Some(&c) = b.get(k).filter(|c| c.is_ascii_digit()) {
                e = (e * 10 + i64::from(c - b'0')).min(1 << 20);
                k += 1;
            }
            exp2 += if negative { -e } else { e };
        }
    }
    let nonzero = mantissa != 0 || sticky;
    let m = (mantissa | u64::from(sticky)) as f64;
    Some((ldexp(m, exp2), nonzero))
}

/// `x * 2^e` without intermediate overflow.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    let step = |x: f64, k: i32| x * 2f64.powi(k);
    while e > 1000 {
        x = step(x, 1000);
        e -= 1000;
        if x.is_infinite() {
            return x;
        }
    }
    while e < -1000 {
        x = step(x, -1000);
        e += 1000;
        if x == 0.0 {
            return x;
        }
    }
    step(x, e as i32)
}

/// A double target (O3DE's double serializer).
pub(crate) fn to_f64(tok: &Tok<'_>) -> Coerced<f64> {
    match *tok {
        Tok::Bool(b) => Coerced::Ok(if b { 1.0 } else { 0.0 }),
        Tok::Num(n) => Coerced::Ok(n.as_f64()),
        Tok::Str(s) => match strtod(s) {
            Ok(v) => Coerced::Ok(v),
            Err(StrtodError::NoDigits) => unsupported(format!("\"{}\" does not start with a number", clip(s))),
            Err(StrtodError::Range) => unsupported(format!("\"{}\" is out of range for a double", clip(s))),
        },
        Tok::EmptyObject => Coerced::Default,
        _ => unsupported(format!("{} cannot be read as a floating point number", tok.describe())),
    }
}

/// A float target: like [`to_f64`], then values beyond `FLT_MAX` (including infinities) are
/// Unsupported.
pub(crate) fn to_f32(tok: &Tok<'_>) -> Coerced<f32> {
    match to_f64(tok) {
        Coerced::Ok(v) => f64_to_f32(v),
        Coerced::Default => Coerced::Default,
        Coerced::Fail(o, m) => Coerced::Fail(o, m),
    }
}

/// O3DE's float range check: `v > FLT_MAX || v < -FLT_MAX` is Unsupported (NaN passes).
pub(crate) fn f64_to_f32(v: f64) -> Coerced<f32> {
    if v > f64::from(f32::MAX) || v < -f64::from(f32::MAX) {
        unsupported(format!("{v:?} is too large for a float"))
    } else {
        Coerced::Ok(v as f32)
    }
}

/// A string target (O3DE's string serializer): `true` → `"True"`, integers as decimal text,
/// doubles like `printf("%f")`.
pub(crate) fn to_string<'a>(tok: &Tok<'a>) -> Coerced<Cow<'a, str>> {
    match *tok {
        Tok::Str(s) => Coerced::Ok(Cow::Borrowed(s)),
        Tok::Bool(true) => Coerced::Ok(Cow::Borrowed("True")),
        Tok::Bool(false) => Coerced::Ok(Cow::Borrowed("False")),
        Tok::Num(Num::U(u)) => Coerced::Ok(Cow::Owned(itoa::Buffer::new().format(u).to_owned())),
        Tok::Num(Num::I(i)) => Coerced::Ok(Cow::Owned(itoa::Buffer::new().format(i).to_owned())),
        Tok::Num(Num::F(f)) => Coerced::Ok(Cow::Owned(printf_f(f))),
        Tok::EmptyObject => Coerced::Default,
        _ => unsupported(format!("{} cannot be read as a string", tok.describe())),
    }
}

/// `printf("%f", v)`: six decimals, correctly rounded from the exact binary value.
pub(crate) fn printf_f(v: f64) -> String {
    if v.is_nan() {
        if v.is_sign_negative() { "-nan".to_owned() } else { "nan".to_owned() }
    } else if v.is_infinite() {
        if v < 0.0 { "-inf".to_owned() } else { "inf".to_owned() }
    } else {
        // Up to 316 characters from a few bytes of input (`1e308`): keep no spare capacity.
        let mut s = format!("{v:.6}");
        s.shrink_to_fit();
        s
    }
}

/// The first 64 characters of `s`, for messages.
pub(crate) fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(64) {
        Some((at, _)) => Cow::Owned(format!("{}…", &s[..at])),
        None => Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok<T>(c: Coerced<T>) -> T {
        match c {
            Coerced::Ok(v) => v,
            _ => panic!("not ok"),
        }
    }

    fn fails<T>(c: Coerced<T>) -> bool {
        matches!(c, Coerced::Fail(Outcome::Unsupported, _))
    }

    #[test]
    fn strtoll_prefixes() {
        assert_eq!(ok(int_from_str::<i32>("0x10")), 16);
        assert_eq!(ok(int_from_str::<i32>("010")), 8);
        assert_eq!(ok(int_from_str::<i32>("09")), 0);
        assert_eq!(ok(int_from_str::<i32>("0x")), 0);
        assert_eq!(ok(int_from_str::<i32>("  +34 Hello")), 34);
        assert_eq!(ok(int_from_str::<i32>("-12.6")), -12);
        assert!(fails(int_from_str::<i32>(".5")));
        assert!(fails(int_from_str::<i32>("-.5")));
        assert!(fails(int_from_str::<i32>("")));
        assert!(fails(int_from_str::<u32>("-34")));
        assert_eq!(ok(int_from_str::<u32>("-0")), 0);
        assert!(fails(int_from_str::<i64>("9223372036854775808")));
        assert_eq!(ok(int_from_str::<i64>("-9223372036854775808")), i64::MIN);
        assert_eq!(ok(int_from_str::<u64>("18446744073709551615")), u64::MAX);
        assert!(fails(int_from_str::<u64>("18446744073709551616")));
        assert!(fails(int_from_str::<i8>("128")));
    }

    #[test]
    fn doubles_truncate_after_the_range_check() {
        assert_eq!(ok(int_from_f64::<i32>(12.9)), 12);
        assert_eq!(ok(int_from_f64::<i32>(-12.9)), -12);
        assert!(fails(int_from_f64::<i8>(127.5)));
        assert!(fails(int_from_f64::<u8>(-0.5)));
        assert!(fails(int_from_f64::<i64>(2f64.powi(63))));
        assert!(fails(int_from_f64::<i32>(f64::NAN)));
    }

    #[test]
    fn strtod_prefixes() {
        assert_eq!(strtod("12.5f"), Ok(12.5));
        assert_eq!(strtod("2.4 42.0"), Ok(2.4));
        assert_eq!(strtod(" .5"), Ok(0.5));
        assert_eq!(strtod("1e"), Ok(1.0));
        assert_eq!(strtod("1e+2x"), Ok(100.0));
        assert_eq!(strtod("0x1.8p3"), Ok(12.0));
        assert_eq!(strtod("0x10"), Ok(16.0));
        assert_eq!(strtod("0x"), Ok(0.0));
        assert_eq!(strtod("-INFINITY"), Ok(f64::NEG_INFINITY));
        assert!(strtod("nan(123)").unwrap().is_nan());
        assert_eq!(strtod("hello 2.4"), Err(StrtodError::NoDigits));
        assert_eq!(strtod(""), Err(StrtodError::NoDigits));
        assert_eq!(strtod("."), Err(StrtodError::NoDigits));
        assert_eq!(strtod(&format!("{}.0", "9".repeat(500))), Err(StrtodError::Range));
        assert_eq!(strtod("1e-400"), Err(StrtodError::Range));
        assert_eq!(strtod("0e-400"), Ok(0.0));
    }

    #[test]
    fn bools() {
        for (s, v) in [("fALse", false), ("tRuE", true), ("0eee", false), ("0.5", false), ("-1.0f", true)] {
            assert_eq!(ok(to_bool(&Tok::Str(s))), v, "{s}");
        }
        for s in ["", "   ", "ee0", "Invalid", "truex"] {
            assert!(fails(to_bool(&Tok::Str(s))), "{s}");
        }
        assert!(!ok(to_bool(&Tok::Num(Num::F(-0.0)))));
        assert_eq!(to_bool(&Tok::EmptyObject), Coerced::Default);
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.1415 is the O3DE test's input
    fn floats_and_strings() {
        assert!(fails(to_f32(&Tok::Num(Num::F(1.7976931348623157e308)))));
        assert!(fails(to_f32(&Tok::Str("inf"))));
        assert_eq!(ok(to_f64(&Tok::Str("inf"))), f64::INFINITY);
        assert_eq!(ok(to_string(&Tok::Num(Num::F(3.1415)))), "3.141500");
        assert_eq!(ok(to_string(&Tok::Num(Num::I(-42)))), "-42");
        assert_eq!(ok(to_string(&Tok::Bool(true))), "True");
    }
}
