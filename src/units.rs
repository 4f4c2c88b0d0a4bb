//! Numbers as pprof prints them: megabytes with one decimal, bytes and objects and samples as
//! truncated integers, contention delays in seconds with three decimals, percentages with one.

use crate::profile::Kind;

/// What the selected value measures, which decides how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Heap bytes, printed as MB (or bytes with `--show_bytes`).
    Bytes {
        /// `--show_bytes`.
        show_bytes: bool,
    },
    /// Heap objects.
    Objects,
    /// CPU samples, or contention counts (`--contentions`).
    Samples,
    /// Contention delay in nanoseconds, printed in seconds.
    Nanoseconds,
    /// Threads (thread profiles).
    Threads,
}

impl Measure {
    /// The measure of a profile of `kind` whose value column `index` is selected.
    pub fn of(kind: Kind, index: usize, show_bytes: bool) -> Measure {
        match kind {
            Kind::Heap | Kind::Growth => {
                if index.is_multiple_of(2) {
                    Measure::Objects
                } else {
                    Measure::Bytes { show_bytes }
                }
            }
            Kind::Contention => {
                if index == 1 {
                    Measure::Samples
                } else {
                    Measure::Nanoseconds
                }
            }
            Kind::Cpu => Measure::Samples,
            Kind::Thread => Measure::Threads,
        }
    }

    /// pprof's `UnparseAlt`: `.` for zero, else [`Measure::unparse`].
    pub fn unparse_alt(self, v: f64) -> String {
        if v == 0.0 {
            ".".to_string()
        } else {
            self.unparse(v)
        }
    }

    /// pprof's `Unparse`.
    pub fn unparse(self, v: f64) -> String {
        let mut b = Vec::with_capacity(16);
        self.push_unparse(&mut b, v);
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Appends [`Measure::unparse`]`(v)`: megabytes with one decimal, seconds with three,
    /// anything else as a truncated integer.
    pub fn push_unparse(self, buf: &mut Vec<u8>, v: f64) {
        match self {
            Measure::Bytes { show_bytes: false } => {
                let mb = v / 1048576.0;
                if !push_one_decimal(buf, mb) && !push_perl_nonfinite(buf, mb) {
                    buf.extend_from_slice(format!("{mb:.1}").as_bytes());
                }
            }
            Measure::Nanoseconds => {
                if !push_perl_nonfinite(buf, v) {
                    buf.extend_from_slice(format!("{:.3}", v / 1e9).as_bytes());
                }
            }
            _ => push_perl_int(buf, v),
        }
    }

    /// pprof's `Units`.
    pub fn units(self) -> &'static str {
        match self {
            Measure::Bytes { show_bytes: false } => "MB",
            Measure::Bytes { show_bytes: true } => "B",
            Measure::Objects => "objects",
            Measure::Samples => "samples",
            Measure::Nanoseconds => "seconds",
            Measure::Threads => "threads",
        }
    }
}

/// The sum of `values` as pprof's Perl adds them up, from 0: Rust's `f64` sum starts from
/// -0.0, so that summing nothing gives -0.0, which prints as `-0.0`.
pub fn sum<V: std::borrow::Borrow<f64>>(values: impl IntoIterator<Item = V>) -> f64 {
    values.into_iter().fold(0.0, |a, v| a + *v.borrow())
}

/// Perl's `sprintf("%d", v)` of a float: truncated toward zero; from 2^63 up to 2^64 as the
/// unsigned number, past it -1; `NaN`, `Inf` and `-Inf` as words (Perl 5.36, Debian 12's).
pub fn perl_int(v: f64) -> String {
    let mut b = Vec::new();
    if push_perl_nonfinite(&mut b, v) {
        return String::from_utf8_lossy(&b).into_owned();
    }
    let t = v.trunc();
    if t >= 9.223_372_036_854_776e18 {
        if t < 1.844_674_407_370_955_2e19 {
            return format!("{}", t as u64);
        }
        return "-1".to_string();
    }
    if t <= -9.223_372_036_854_776e18 {
        return i64::MIN.to_string();
    }
    format!("{}", t as i64)
}

/// Perl's `sprintf("%.1f")` of an infinity or a NaN (`Inf`, `-Inf`, `NaN`; a `--nodefraction`
/// of 1e400 makes one), appended; false for a finite `v`, which is left to the caller.
fn push_perl_nonfinite(buf: &mut Vec<u8>, v: f64) -> bool {
    let s: &[u8] = if v.is_nan() {
        b"NaN"
    } else if v == f64::INFINITY {
        b"Inf"
    } else if v == f64::NEG_INFINITY {
        b"-Inf"
    } else {
        return false;
    };
    buf.extend_from_slice(s);
    true
}

/// pprof's `Percent`: `num` as a percentage of `tot`, one decimal.
pub fn percent(num: f64, tot: f64) -> String {
    let mut b = Vec::with_capacity(12);
    push_percent(&mut b, num, tot);
    String::from_utf8_lossy(&b).into_owned()
}

/// `format!("{v:.1}%")` without the formatting machinery (every line of a report has two
/// percentages), when `v` is not near a rounding tie; `None` leaves it to `format!`.
#[cfg(test)]
fn one_decimal(v: f64) -> Option<String> {
    let mut b = Vec::new();
    push_one_decimal(&mut b, v).then(|| {
        b.push(b'%');
        String::from_utf8_lossy(&b).into_owned()
    })
}

/// Appends `format!("{v:.1}")` when `v` is not near a rounding tie (where the exact binary
/// value decides) and returns true; appends nothing and returns false otherwise.
fn push_one_decimal(buf: &mut Vec<u8>, v: f64) -> bool {
    let a = v.abs();
    if a.is_nan() || a >= 1e12 {
        return false;
    }
    let tenths = a * 10.0;
    // Below 10^13: the whole part is exact in a u64 and in an f64 (`floor`, for a
    // number at least 0).
    let whole = tenths as u64;
    let frac = tenths - whole as f64;
    // Near .5 the exact binary value decides the rounding: leave that to `format!`.
    if (frac - 0.5).abs() < 1e-6 {
        return false;
    }
    let t = whole + u64::from(frac > 0.5);
    if v.is_sign_negative() {
        buf.push(b'-');
    }
    push_u64(buf, t / 10);
    buf.extend_from_slice(&[b'.', b'0' + (t % 10) as u8]);
    true
}

/// The decimal digits of `n`, written at the end of `digits` (without the formatting
/// machinery: lines and places of reports are made of many small numbers).
pub fn decimal(mut n: u64, digits: &mut [u8; 20]) -> &[u8] {
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &digits[i..]
}

/// Appends `v` in lower-case hex, zero-padded to `width` digits (up to 32): what
/// `format!("{v:0width$x}")` gives, without the formatting machinery.
pub fn push_hex(s: &mut String, v: u64, width: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // The digits, right-aligned in a buffer of zeros as wide as the widest number.
    let mut buf = [b'0'; 32];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = HEX[(v & 0xf) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    let start = buf.len() - (buf.len() - i).max(width.min(buf.len()));
    // ASCII digits: each byte is its own char (no UTF-8 check needed).
    s.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// Appends `n` in decimal.
fn push_u64(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(decimal(n, &mut [0; 20]));
}

/// Appends [`perl_int`]`(v)`.
pub fn push_perl_int(buf: &mut Vec<u8>, v: f64) {
    let t = v.trunc();
    // Exactly representable and far from the limits: the common case, without a String.
    if t.abs() < 9.0e15 {
        if t < 0.0 {
            buf.push(b'-');
        }
        push_u64(buf, t.abs() as u64);
    } else {
        buf.extend_from_slice(perl_int(v).as_bytes());
    }
}

/// Appends [`percent`]`(num, tot)`: `format!("{:.1}%")` of the share, or Perl's `nan`,
/// `+inf`, `-inf` when `tot` is zero.
pub fn push_percent(buf: &mut Vec<u8>, num: f64, tot: f64) {
    if tot != 0.0 {
        let v = num * 100.0 / tot;
        if !push_one_decimal(buf, v) {
            buf.extend_from_slice(format!("{v:.1}").as_bytes());
        }
        buf.push(b'%');
    } else if num == 0.0 {
        buf.extend_from_slice(b"nan");
    } else if num > 0.0 {
        buf.extend_from_slice(b"+inf");
    } else {
        buf.extend_from_slice(b"-inf");
    }
}

/// Appends `s` right-aligned in `width` columns (`{s:>width$}` for ASCII text).
pub fn push_right(buf: &mut Vec<u8>, width: usize, s: &[u8]) {
    buf.resize(buf.len() + width.saturating_sub(s.len()), b' ');
    buf.extend_from_slice(s);
}

/// Perl's default stringification of a number (`%.15g`, integers without a decimal point).
pub fn perl_num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Inf" } else { "-Inf" }.to_string();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    // %.15g: 15 significant digits, trailing zeros removed, exponent when out of range.
    let exp = v.abs().log10().floor() as i32;
    if !(-4..15).contains(&exp) {
        let s = format!("{:.14e}", v);
        // Rust prints e.g. "1.23400000000000e20"; %g wants "1.234e+20".
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = trim_zeros(mant);
        let e: i32 = e.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", e.abs());
    }
    let decimals = (14 - exp).max(0) as usize;
    let s = format!("{v:.decimals$}");
    trim_zeros(&s).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An infinite limit (`--nodefraction=1e400`) prints as Perl's `%.1f` and `%d` print it.
    #[test]
    fn infinities_as_perl_prints_them() {
        assert_eq!(perl_int(f64::INFINITY), "Inf");
        assert_eq!(perl_int(f64::NEG_INFINITY), "-Inf");
        assert_eq!(perl_int(f64::NAN), "NaN");
        assert_eq!(perl_int(1.9e19), "-1");
        assert_eq!(perl_int(-1.9e19), "-9223372036854775808");
        let mb = Measure::Bytes { show_bytes: false };
        assert_eq!(mb.unparse(f64::INFINITY), "Inf");
        assert_eq!(mb.unparse(f64::NEG_INFINITY), "-Inf");
        assert_eq!(mb.unparse(f64::NAN), "NaN");
        assert_eq!(mb.unparse(0.0), "0.0");
        assert_eq!(Measure::Nanoseconds.unparse(f64::INFINITY), "Inf");
    }

    /// Hex as `format!("{v:0width$x}")` writes it, at the widths used and past them.
    #[test]
    fn hex_as_format_writes_it() {
        for v in [
            0u64,
            1,
            0xf,
            0x10,
            0x16b0,
            0x5579_f136_9b18,
            u64::MAX >> 1,
            u64::MAX,
        ] {
            for width in [0usize, 1, 8, 12, 16, 20, 32] {
                let mut s = String::from("x");
                push_hex(&mut s, v, width);
                assert_eq!(s, format!("x{v:0width$x}"), "{v:#x} {width}");
            }
        }
    }

    #[test]
    fn percent_fast_path_equals_format() {
        // A small deterministic generator: values of every size, sign and rounding.
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for i in 0..200_000u32 {
            let num = (next() % 2_000_000) as f64 - 1_000_000.0 + f64::from(i % 7) * 0.25;
            let tot = (next() % 5_000_000 + 1) as f64 * if i % 11 == 0 { -1.0 } else { 1.0 };
            let v = num * 100.0 / tot;
            if let Some(s) = one_decimal(v) {
                assert_eq!(s, format!("{v:.1}%"), "{num} / {tot}");
                checked += 1;
            }
        }
        assert!(checked > 190_000);
        for v in [
            0.0, -0.0, 0.04, -0.04, 0.05, 0.15, 0.25, 99.95, 100.0, -12.35, 1e11, 2.5e-7,
        ] {
            let want = format!("{v:.1}%");
            assert_eq!(one_decimal(v).unwrap_or_else(|| want.clone()), want, "{v}");
        }
    }

    #[test]
    fn appending_equals_formatting() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            3.99,
            -3.99,
            1048576.0,
            1572864.0,
            52428.8,
            9.0e15,
            -9.0e15,
            9.5e15,
            1e19,
            2e19,
            -1e19,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for i in 0..100_000u32 {
            let scale = 10f64.powi((i % 17) as i32);
            values.push(((next() % 2_000_001) as f64 - 1_000_000.0) * scale / 1000.0);
        }
        let measures = [
            Measure::Bytes { show_bytes: false },
            Measure::Bytes { show_bytes: true },
            Measure::Objects,
            Measure::Samples,
            Measure::Nanoseconds,
            Measure::Threads,
        ];
        for &v in &values {
            let mut b = Vec::new();
            push_perl_int(&mut b, v);
            assert_eq!(String::from_utf8_lossy(&b), perl_int(v), "{v}");
            for m in measures {
                let want = match m {
                    _ if !v.is_finite() => perl_int(v),
                    Measure::Bytes { show_bytes: false } => format!("{:.1}", v / 1048576.0),
                    Measure::Nanoseconds => format!("{:.3}", v / 1e9),
                    _ => perl_int(v),
                };
                assert_eq!(m.unparse(v), want, "{m:?} {v}");
            }
            for tot in [0.0, 7.0, -3.0, 123456.0] {
                let want = if tot != 0.0 {
                    format!("{:.1}%", v * 100.0 / tot)
                } else if v == 0.0 {
                    "nan".to_string()
                } else if v > 0.0 {
                    "+inf".to_string()
                } else {
                    "-inf".to_string()
                };
                assert_eq!(percent(v, tot), want, "{v} {tot}");
            }
        }
        let mut b = b"x".to_vec();
        push_right(&mut b, 4, b"ab");
        push_right(&mut b, 1, b"abc");
        assert_eq!(b, b"x  ababc");
    }

    #[test]
    fn formats() {
        let mb = Measure::Bytes { show_bytes: false };
        assert_eq!(mb.unparse(7137771.0), "6.8");
        assert_eq!(mb.unparse(-11216128.0), "-10.7");
        assert_eq!(Measure::Objects.unparse(3.99), "3");
        assert_eq!(Measure::Objects.unparse(-3.99), "-3");
        assert_eq!(Measure::Nanoseconds.unparse(690_500_000.0), "0.691");
        assert_eq!(percent(1.0, 3.0), "33.3%");
        assert_eq!(percent(0.0, 0.0), "nan");
        assert_eq!(percent(-1.0, 0.0), "-inf");
    }

    #[test]
    fn perl_numbers() {
        assert_eq!(perl_num(17.0), "17");
        assert_eq!(perl_num(4687889.0), "4687889");
        assert_eq!(perl_num(528909.4560937232), "528909.456093723");
        assert_eq!(perl_num(0.5), "0.5");
        assert_eq!(perl_num(1e20), "1e+20");
        assert_eq!(perl_num(0.000012345), "1.2345e-05");
    }
}
