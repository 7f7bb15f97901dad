//! Godot's float texts: Godot 4.5+'s `num_scientific` (Grisu2 digits, Godot's layout), Godot 3's
//! `%lg` of the value cast to `f32`, and reading decimal text back (correctly rounded).
//!
//! The Grisu2 digit generation follows the published algorithm (Florian Loitsch, "Printing
//! Floating-Point Numbers Quickly and Accurately with Integers", 2010, with the boundaries and
//! rounding of the common `grisu2` reference implementation that Godot ships in
//! `thirdparty/grisu2`): it is *not* always the shortest form, and Godot prints exactly its output,
//! so neither `{}` nor ryu would do.

/// A 64-bit significand and a binary exponent: `f * 2^e`.
#[derive(Clone, Copy)]
struct Fp {
    f: u64,
    e: i32,
}

impl Fp {
    /// The product rounded to 64 bits (half up on the dropped bits).
    fn mul(self, y: Fp) -> Fp {
        let p = u128::from(self.f) * u128::from(y.f);
        let h = (p >> 64) as u64 + ((p >> 63) & 1) as u64;
        Fp { f: h, e: self.e + y.e + 64 }
    }

    fn normalize(self) -> Fp {
        let s = self.f.leading_zeros();
        Fp { f: self.f << s, e: self.e - s as i32 }
    }

    fn normalize_to(self, e: i32) -> Fp {
        Fp { f: self.f << (self.e - e), e }
    }
}

/// `10^k ≈ f * 2^e` for k = -300, -292, …, 324 (f normalized, rounded to nearest): computed from
/// exact integer arithmetic.
const CACHED_POWERS: [(u64, i32, i32); 79] = [
    (0xAB70FE17C79AC6CA, -1060, -300),
    (0xFF77B1FCBEBCDC4F, -1034, -292),
    (0xBE5691EF416BD60C, -1007, -284),
    (0x8DD01FAD907FFC3C, -980, -276),
    (0xD3515C2831559A83, -954, -268),
    (0x9D71AC8FADA6C9B5, -927, -260),
    (0xEA9C227723EE8BCB, -901, -252),
    (0xAECC49914078536D, -874, -244),
    (0x823C12795DB6CE57, -847, -236),
    (0xC21094364DFB5637, -821, -228),
    (0x9096EA6F3848984F, -794, -220),
    (0xD77485CB25823AC7, -768, -212),
    (0xA086CFCD97BF97F4, -741, -204),
    (0xEF340A98172AACE5, -715, -196),
    (0xB23867FB2A35B28E, -688, -188),
    (0x84C8D4DFD2C63F3B, -661, -180),
    (0xC5DD44271AD3CDBA, -635, -172),
    (0x936B9FCEBB25C996, -608, -164),
    (0xDBAC6C247D62A584, -582, -156),
    (0xA3AB66580D5FDAF6, -555, -148),
    (0xF3E2F893DEC3F126, -529, -140),
    (0xB5B5ADA8AAFF80B8, -502, -132),
    (0x87625F056C7C4A8B, -475, -124),
    (0xC9BCFF6034C13053, -449, -116),
    (0x964E858C91BA2655, -422, -108),
    (0xDFF9772470297EBD, -396, -100),
    (0xA6DFBD9FB8E5B88F, -369, -92),
    (0xF8A95FCF88747D94, -343, -84),
    (0xB94470938FA89BCF, -316, -76),
    (0x8A08F0F8BF0F156B, -289, -68),
    (0xCDB02555653131B6, -263, -60),
    (0x993FE2C6D07B7FAC, -236, -52),
    (0xE45C10C42A2B3B06, -210, -44),
    (0xAA242499697392D3, -183, -36),
    (0xFD87B5F28300CA0E, -157, -28),
    (0xBCE5086492111AEB, -130, -20),
    (0x8CBCCC096F5088CC, -103, -12),
    (0xD1B71758E219652C, -77, -4),
    (0x9C40000000000000, -50, 4),
    (0xE8D4A51000000000, -24, 12),
    (0xAD78EBC5AC620000, 3, 20),
    (0x813F3978F8940984, 30, 28),
    (0xC097CE7BC90715B3, 56, 36),
    (0x8F7E32CE7BEA5C70, 83, 44),
    (0xD5D238A4ABE98068, 109, 52),
    (0x9F4F2726179A2245, 136, 60),
    (0xED63A231D4C4FB27, 162, 68),
    (0xB0DE65388CC8ADA8, 189, 76),
    (0x83C7088E1AAB65DB, 216, 84),
    (0xC45D1DF942711D9A, 242, 92),
    (0x924D692CA61BE758, 269, 100),
    (0xDA01EE641A708DEA, 295, 108),
    (0xA26DA3999AEF774A, 322, 116),
    (0xF209787BB47D6B85, 348, 124),
    (0xB454E4A179DD1877, 375, 132),
    (0x865B86925B9BC5C2, 402, 140),
    (0xC83553C5C8965D3D, 428, 148),
    (0x952AB45CFA97A0B3, 455, 156),
    (0xDE469FBD99A05FE3, 481, 164),
    (0xA59BC234DB398C25, 508, 172),
    (0xF6C69A72A3989F5C, 534, 180),
    (0xB7DCBF5354E9BECE, 561, 188),
    (0x88FCF317F22241E2, 588, 196),
    (0xCC20CE9BD35C78A5, 614, 204),
    (0x98165AF37B2153DF, 641, 212),
    (0xE2A0B5DC971F303A, 667, 220),
    (0xA8D9D1535CE3B396, 694, 228),
    (0xFB9B7CD9A4A7443C, 720, 236),
    (0xBB764C4CA7A44410, 747, 244),
    (0x8BAB8EEFB6409C1A, 774, 252),
    (0xD01FEF10A657842C, 800, 260),
    (0x9B10A4E5E9913129, 827, 268),
    (0xE7109BFBA19C0C9D, 853, 276),
    (0xAC2820D9623BF429, 880, 284),
    (0x80444B5E7AA7CF85, 907, 292),
    (0xBF21E44003ACDD2D, 933, 300),
    (0x8E679C2F5E44FF8F, 960, 308),
    (0xD433179D9C8CB841, 986, 316),
    (0x9E19DB92B4E31BA9, 1013, 324),
];

/// The normalized value and its lower and upper boundaries (halfway to the neighbours), for a
/// finite positive float with `precision` significand bits (53 or 24) given as its raw exponent
/// field and fraction field.
fn boundaries(exponent_field: u64, fraction: u64, precision: u32, bias: i32) -> (Fp, Fp, Fp) {
    let hidden = 1u64 << (precision - 1);
    let min_exp = 1 - bias;
    let v = if exponent_field == 0 {
        Fp { f: fraction, e: min_exp }
    } else {
        Fp { f: fraction + hidden, e: exponent_field as i32 - bias }
    };
    let lower_closer = fraction == 0 && exponent_field > 1;
    let plus = Fp { f: 2 * v.f + 1, e: v.e - 1 }.normalize();
    let minus = if lower_closer { Fp { f: 4 * v.f - 1, e: v.e - 2 } } else { Fp { f: 2 * v.f - 1, e: v.e - 1 } };
    (v.normalize(), minus.normalize_to(plus.e), plus)
}

/// Grisu2 digits (at most 17) and the decimal exponent: value = digits × 10^exponent.
pub(crate) struct Digits {
    buf: [u8; 20],
    len: usize,
    exp: i32,
}

impl Digits {
    fn digits(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

fn grisu2(w: Fp, minus: Fp, plus: Fp) -> Digits {
    const ALPHA: i32 = -60;
    let f = ALPHA - plus.e - 1;
    let k = (f * 78913) / (1 << 18) + i32::from(f > 0);
    let index = ((300 + k + 7) / 8) as usize;
    let (cf, ce, ck) = CACHED_POWERS[index];
    let c = Fp { f: cf, e: ce };
    let w = w.mul(c);
    let w_minus = minus.mul(c);
    let w_plus = plus.mul(c);
    let m_minus = Fp { f: w_minus.f + 1, e: w_minus.e };
    let m_plus = Fp { f: w_plus.f - 1, e: w_plus.e };
    let mut out = Digits { buf: [0; 20], len: 0, exp: -ck };
    digit_gen(&mut out, m_minus, w, m_plus);
    out
}

fn digit_gen(out: &mut Digits, m_minus: Fp, w: Fp, m_plus: Fp) {
    let mut delta = m_plus.f - m_minus.f;
    let mut dist = m_plus.f - w.f;
    let shift = -m_plus.e as u32;
    let one = 1u64 << shift;
    let mut p1 = (m_plus.f >> shift) as u32;
    let mut p2 = m_plus.f & (one - 1);
    let (mut n, mut pow10) = largest_pow10(p1);
    while n > 0 {
        let d = p1 / pow10;
        p1 %= pow10;
        out.buf[out.len] = b'0' + d as u8;
        out.len += 1;
        n -= 1;
        let rest = (u64::from(p1) << shift) + p2;
        if rest <= delta {
            out.exp += n;
            round(out, dist, delta, rest, u64::from(pow10) << shift);
            return;
        }
        pow10 /= 10;
    }
    let mut m = 0;
    loop {
        p2 *= 10;
        let d = p2 >> shift;
        p2 &= one - 1;
        out.buf[out.len] = b'0' + d as u8;
        out.len += 1;
        m += 1;
        delta *= 10;
        dist *= 10;
        if p2 <= delta {
            break;
        }
    }
    out.exp -= m;
    round(out, dist, delta, p2, one);
}

fn largest_pow10(n: u32) -> (i32, u32) {
    let mut pow = 1_000_000_000u32;
    let mut digits = 10;
    while digits > 1 && n < pow {
        pow /= 10;
        digits -= 1;
    }
    (digits, pow)
}

fn round(out: &mut Digits, dist: u64, delta: u64, mut rest: u64, ten_k: u64) {
    while rest < dist && delta - rest >= ten_k && (rest + ten_k < dist || dist - rest > rest + ten_k - dist) {
        out.buf[out.len - 1] -= 1;
        rest += ten_k;
    }
}

/// Grisu2 digits of a finite, positive `f64`.
pub(crate) fn grisu2_f64(v: f64) -> Digits {
    let bits = v.to_bits();
    let (w, minus, plus) = boundaries((bits >> 52) & 0x7FF, bits & ((1 << 52) - 1), 53, 1075);
    grisu2(w, minus, plus)
}

/// Grisu2 digits of a finite, positive `f32` (its own boundaries, so `0.1f32` gives `1e-1`).
pub(crate) fn grisu2_f32(v: f32) -> Digits {
    let bits = u64::from(v.to_bits());
    let (w, minus, plus) = boundaries((bits >> 23) & 0xFF, bits & ((1 << 23) - 1), 24, 150);
    grisu2(w, minus, plus)
}

/// Godot's patched `format_buffer` (exponent form below 1e-4 and from 1e15 on, no `.0`).
fn layout(out: &mut String, negative: bool, d: &Digits) {
    if negative {
        out.push('-');
    }
    let digits = d.digits();
    let k = digits.len() as i32;
    let n = k + d.exp;
    fn text(s: &[u8]) -> &str {
        std::str::from_utf8(s).unwrap_or("")
    }
    if k <= n && n <= 15 {
        out.push_str(text(digits));
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 15 {
        out.push_str(text(&digits[..n as usize]));
        out.push('.');
        out.push_str(text(&digits[n as usize..]));
    } else if -4 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(text(digits));
    } else {
        out.push_str(text(&digits[..1]));
        if k > 1 {
            out.push('.');
            out.push_str(text(&digits[1..]));
        }
        push_exponent(out, n - 1);
    }
}

/// `e+05`, `e-10`, `e+308`: a sign and at least two digits, like C's `%e`.
fn push_exponent(out: &mut String, e: i32) {
    out.push('e');
    out.push(if e < 0 { '-' } else { '+' });
    let e = e.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

/// Godot 4.5+'s `rtos_fix(x, compat = true)`: `0`, `inf`, `inf_neg`, `nan`, or Grisu2 digits —
/// of the `f32` when `x` is exactly an `f32` (so `0.1f32` prints `0.1`), else of the `f64`.
pub(crate) fn godot4_real(out: &mut String, x: f64) {
    if x == 0.0 {
        out.push('0');
    } else if x.is_nan() {
        out.push_str("nan");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "inf_neg" });
    } else if f64::from(x as f32) == x {
        let f = x as f32;
        layout(out, f < 0.0, &grisu2_f32(f.abs()));
    } else {
        layout(out, x < 0.0, &grisu2_f64(x.abs()));
    }
}

/// Godot 3's `rtos_fix` of a real: `0` for either zero, else C's `%lg` of the value (6
/// significant digits), with glibc's `inf`, `-inf`, `nan`, `-nan`.
pub(crate) fn godot3_real(out: &mut String, x: f32) {
    if x == 0.0 {
        out.push('0');
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    let x = x.abs();
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str("inf");
        return;
    }
    // `{:.5e}` is correctly rounded, ties to even, like glibc.
    let sci = format!("{:.5e}", f64::from(x));
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    if (-4..6).contains(&exp) {
        // Fixed notation with 6 significant digits, trailing zeros removed.
        let mut s = String::new();
        if exp < 0 {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            s.extend(digits.iter().map(|&d| d as char));
        } else {
            let int = exp as usize + 1;
            s.extend(digits[..int].iter().map(|&d| d as char));
            s.push('.');
            s.extend(digits[int..].iter().map(|&d| d as char));
        }
        let trimmed = s.trim_end_matches('0').trim_end_matches('.');
        out.push_str(trimmed);
    } else {
        let m = mantissa.trim_end_matches('0').trim_end_matches('.');
        out.push_str(m);
        push_exponent(out, exp);
    }
}

/// A FLOAT Variant in Godot 4.5+ (`var_to_str`): [`godot4_real`] plus `.0` when the text has
/// neither `.` nor an exponent (`1.0`, `1e+20`, `inf`, `inf_neg`, `nan`).
pub(crate) fn godot4_float(out: &mut String, x: f64) {
    let start = out.len();
    godot4_real(out, x);
    let s = &out[start..];
    if !(s.contains(['.', 'e', 'E']) || s == "inf" || s == "nan") {
        out.push_str(".0");
    }
}

/// A FLOAT Variant in Godot 3 (`var2str`): the value cast to `f32`, [`godot3_real`], then `.0`
/// unless the text has `.` or `e` or is `inf` / `nan` (so `-inf.0`, `-nan.0`).
pub(crate) fn godot3_float(out: &mut String, x: f64) {
    let start = out.len();
    godot3_real(out, x as f32);
    let s = &out[start..];
    if !(s.contains(['.', 'e']) || s == "inf" || s == "nan") {
        out.push_str(".0");
    }
}

/// Reads a number token's text (`-? DIGIT+ (. DIGIT*)? (e [+-]? DIGIT*)?`) as a correctly
/// rounded `f64` (Godot's own `built_in_strtod` is not, see the crate README). An exponent
/// without digits is ignored, as in the engine.
pub(crate) fn parse_f64(token: &str) -> f64 {
    let cut = match token.find(['e', 'E']) {
        Some(i) if !token[i + 1..].bytes().any(|b| b.is_ascii_digit()) => &token[..i],
        _ => token,
    };
    cut.parse().unwrap_or(f64::NAN)
}

/// Reads an integer token the way the engine's `to_int` does: digits accumulate in an `i64`
/// (wrapping on the last digit past `i64::MAX`, as Godot 3.2.3 does: `9223372036854775808` →
/// `-9223372036854775808`), and a value that already exceeds 922337203685477580 before another
/// digit clamps to `i64::MAX` / `i64::MIN`. With `clamp_all` (Godot 4, whose test expects
/// `9223372036854775808` → `i64::MAX`) every out-of-range value clamps.
pub(crate) fn parse_i64(token: &str, clamp_all: bool) -> i64 {
    let (negative, digits) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    if clamp_all {
        let mut v: i128 = 0;
        for b in digits.bytes() {
            v = v * 10 + i128::from(b - b'0');
            if v > i128::from(i64::MAX) + 1 {
                break;
            }
        }
        let v = if negative { -v } else { v };
        return v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if v > i64::MAX / 10 {
            return if negative { i64::MIN } else { i64::MAX };
        }
        v = v.wrapping_mul(10).wrapping_add(i64::from(b - b'0'));
    }
    if negative { v.wrapping_neg() } else { v }
}
