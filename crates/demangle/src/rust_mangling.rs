//! Rust symbol demangling with the output of GNU libiberty's `rust-demangle.c` (binutils 2.40)
//! without `DMGL_VERBOSE`, which `nm --demangle` and `addr2line -C` try before C++.
//!
//! Legacy names (`_ZN...17h<hash>E`) print their path with the hash hidden; v0 names (`_R...`)
//! print like rustc's `{:#}` form in most cases, but a `.suffix` is dropped, and libiberty
//! spells some things its own way (for example, it knows only integer, `bool` and `char`
//! constants and fails on others, so the caller keeps the mangled name).  Written from that
//! behaviour, independently; never panics, and bounds recursion (as libiberty does) and output.

/// libiberty's `RUST_MAX_RECURSION_COUNT`.
const MAX_RECURSION: u32 = 1024;
/// Longest output before giving up: backreferences can expand exponentially.
const MAX_OUTPUT: usize = 1 << 20;

/// Demangles `name` as libiberty's `rust_demangle(name, DMGL_PARAMS | DMGL_ANSI)`, or `None`.
pub fn demangle(name: &[u8]) -> Option<String> {
    // A C string ends at its first NUL.
    let name = match name.iter().position(|&c| c == 0) {
        Some(i) => name.get(..i).unwrap_or_default(),
        None => name,
    };
    let (sym, legacy) = if let Some(rest) = name.strip_prefix(b"_R") {
        (rest, false)
    } else if let Some(rest) = name.strip_prefix(b"_ZN") {
        (rest, true)
    } else {
        return None;
    };
    if !legacy && !sym.first().is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    // A legacy name must end with its hash (checked again below, after the characters): most
    // C++ names do not, and this check is cheap.
    if legacy && legacy_hash_end(sym).is_none() {
        return None;
    }
    let mut len = 0;
    for &c in sym {
        if !legacy && c == b'.' {
            break;
        }
        len += 1;
        if c == b'_' || c.is_ascii_alphanumeric() {
            continue;
        }
        if legacy && matches!(c, b'$' | b'.' | b':' | b'@') {
            continue;
        }
        return None;
    }
    let mut d = Demangler {
        sym: sym.get(..len).unwrap_or_default(),
        next: 0,
        errored: false,
        skipping_printing: false,
        legacy,
        recursion: 0,
        bound_lifetime_depth: 0,
        out: Vec::new(),
    };
    if legacy {
        d.legacy()?;
    } else {
        d.path(true);
        if !d.errored && d.next < d.sym.len() {
            d.skipping_printing = true;
            d.path(false);
        }
        if d.next != d.sym.len() {
            d.errored = true;
        }
    }
    if d.errored {
        return None;
    }
    Some(match String::from_utf8(d.out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[derive(Clone, Copy, Default)]
struct Ident<'a> {
    ascii: Option<&'a [u8]>,
    punycode: Option<&'a [u8]>,
}

struct Demangler<'a> {
    sym: &'a [u8],
    next: usize,
    errored: bool,
    skipping_printing: bool,
    legacy: bool,
    recursion: u32,
    bound_lifetime_depth: u64,
    out: Vec<u8>,
}

fn basic_type(tag: u8) -> Option<&'static str> {
    Some(match tag {
        b'b' => "bool",
        b'c' => "char",
        b'e' => "str",
        b'u' => "()",
        b'a' => "i8",
        b's' => "i16",
        b'l' => "i32",
        b'x' => "i64",
        b'n' => "i128",
        b'i' => "isize",
        b'h' => "u8",
        b't' => "u16",
        b'm' => "u32",
        b'y' => "u64",
        b'o' => "u128",
        b'j' => "usize",
        b'f' => "f32",
        b'd' => "f64",
        b'z' => "!",
        b'p' => "_",
        b'v' => "...",
        _ => return None,
    })
}

fn hex_nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// "h" and 16 lowercase hex digits, at least 5 of them distinct.
fn is_legacy_prefixed_hash(ident: &Ident<'_>) -> bool {
    let Some(a) = ident.ascii else { return false };
    if a.len() != 17 || a.first() != Some(&b'h') {
        return false;
    }
    let mut seen: u16 = 0;
    for &c in a.iter().skip(1) {
        match hex_nibble(c) {
            Some(n) => seen |= 1 << n,
            None => return false,
        }
    }
    seen.count_ones() >= 5
}

/// Decodes a legacy `$...$` escape at the start of `e`: the character and the escape's length.
fn decode_legacy_escape(e: &[u8]) -> Option<(u8, usize)> {
    if e.len() < 3 || e.first() != Some(&b'$') {
        return None;
    }
    let e = e.get(1..)?;
    let len = e.len();
    let g = |i: usize| e.get(i).copied().unwrap_or(0);
    let (c, escape_len) = if g(0) == b'C' {
        (b',', 1)
    } else if len > 2 {
        let c = match (g(0), g(1)) {
            (b'S', b'P') => b'@',
            (b'B', b'P') => b'*',
            (b'R', b'F') => b'&',
            (b'L', b'T') => b'<',
            (b'G', b'T') => b'>',
            (b'L', b'P') => b'(',
            (b'R', b'P') => b')',
            (b'u', _) if len > 3 => {
                let hi = hex_nibble(g(1))?;
                let lo = hex_nibble(g(2))?;
                if hi > 7 {
                    return None;
                }
                let c = (hi << 4) | lo;
                if c < 0x20 {
                    return None;
                }
                return if len > 3 && g(3) == b'$' {
                    Some((c, 5))
                } else {
                    None
                };
            }
            _ => 0,
        };
        (c, 2)
    } else {
        (0, 0)
    };
    if c == 0 || len <= escape_len || g(escape_len) != b'$' {
        return None;
    }
    Some((c, 2 + escape_len))
}

impl<'a> Demangler<'a> {
    fn peek(&self) -> u8 {
        self.sym.get(self.next).copied().unwrap_or(0)
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == c {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn next_char(&mut self) -> u8 {
        let c = self.peek();
        if c == 0 {
            self.errored = true;
        } else {
            self.next += 1;
        }
        c
    }

    fn print(&mut self, s: &[u8]) {
        if self.errored || self.skipping_printing {
            return;
        }
        if self.out.len() + s.len() > MAX_OUTPUT {
            self.errored = true;
            return;
        }
        self.out.extend_from_slice(s);
    }

    fn print_u64(&mut self, x: u64) {
        self.print(x.to_string().as_bytes());
    }

    fn integer_62(&mut self) -> u64 {
        if self.eat(b'_') {
            return 0;
        }
        let mut x: u64 = 0;
        while !self.eat(b'_') && !self.errored {
            let c = self.next_char();
            x = x.wrapping_mul(62);
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'z' => 10 + (c - b'a'),
                b'A'..=b'Z' => 36 + (c - b'A'),
                _ => {
                    self.errored = true;
                    return 0;
                }
            };
            x = x.wrapping_add(u64::from(d));
        }
        x.wrapping_add(1)
    }

    fn opt_integer_62(&mut self, tag: u8) -> u64 {
        if !self.eat(tag) {
            return 0;
        }
        self.integer_62().wrapping_add(1)
    }

    fn disambiguator(&mut self) -> u64 {
        self.opt_integer_62(b's')
    }

    /// Hex digits up to `_`: their count and value (which wraps past 16 digits).
    fn hex_nibbles(&mut self) -> (usize, u64) {
        let mut len = 0;
        let mut value: u64 = 0;
        while !self.eat(b'_') {
            value <<= 4;
            let c = self.next_char();
            match hex_nibble(c) {
                Some(n) => value |= u64::from(n),
                None => {
                    self.errored = true;
                    return (0, 0);
                }
            }
            len += 1;
        }
        (len, value)
    }

    fn ident(&mut self) -> Ident<'a> {
        let mut ident = Ident::default();
        let is_punycode = !self.legacy && self.eat(b'u');
        let c = self.next_char();
        if !c.is_ascii_digit() {
            self.errored = true;
            return ident;
        }
        let mut len = u64::from(c - b'0');
        if c != b'0' {
            while self.peek().is_ascii_digit() {
                let d = self.next_char() - b'0';
                len = len.wrapping_mul(10).wrapping_add(u64::from(d));
            }
        }
        if !self.legacy {
            self.eat(b'_');
        }
        let start = self.next;
        let end = (start as u64).wrapping_add(len);
        if end < start as u64 || end > self.sym.len() as u64 {
            self.errored = true;
            return ident;
        }
        let end = end as usize;
        self.next = end;
        let Some(text) = self.sym.get(start..end) else {
            self.errored = true;
            return ident;
        };
        let mut ascii = text;
        if is_punycode {
            // The last '_' separates the ASCII part from the punycode.
            let (a, p) = match text.iter().rposition(|&b| b == b'_') {
                Some(i) => (text.get(..i).unwrap_or_default(), text.get(i + 1..)),
                None => (&b""[..], Some(text)),
            };
            let p = p.unwrap_or_default();
            if p.is_empty() {
                self.errored = true;
                return ident;
            }
            ident.punycode = Some(p);
            ascii = a;
        }
        if !ascii.is_empty() {
            ident.ascii = Some(ascii);
        }
        ident
    }

    fn print_ident(&mut self, ident: Ident<'a>) {
        if self.errored || self.skipping_printing {
            return;
        }
        let mut ascii = ident.ascii.unwrap_or_default();
        if self.legacy {
            if ascii.len() >= 2 && ascii.starts_with(b"_$") {
                ascii = ascii.get(1..).unwrap_or_default();
            }
            while !ascii.is_empty() {
                let len;
                if ascii.first() == Some(&b'$') {
                    match decode_legacy_escape(ascii) {
                        Some((c, l)) => {
                            self.print(&[c]);
                            len = l;
                        }
                        None => {
                            self.print(ascii);
                            return;
                        }
                    }
                } else if ascii.first() == Some(&b'.') {
                    if ascii.get(1) == Some(&b'.') {
                        self.print(b"::");
                        len = 2;
                    } else {
                        self.print(b".");
                        len = 1;
                    }
                } else {
                    len = ascii
                        .iter()
                        .position(|&c| c == b'$' || c == b'.')
                        .unwrap_or(ascii.len());
                    self.print(ascii.get(..len).unwrap_or_default());
                }
                ascii = ascii.get(len..).unwrap_or_default();
            }
            return;
        }
        let Some(punycode) = ident.punycode else {
            self.print(ascii);
            return;
        };
        match decode_punycode(ascii, punycode) {
            Ok(Some(s)) => self.print(&s),
            // Truncated input: libiberty prints nothing and goes on.
            Ok(None) => {}
            Err(()) => self.errored = true,
        }
    }

    fn print_lifetime_from_index(&mut self, lt: u64) {
        self.print(b"'");
        if lt == 0 {
            self.print(b"_");
            return;
        }
        let depth = self.bound_lifetime_depth.wrapping_sub(lt);
        if depth < 26 {
            self.print(&[b'a' + depth as u8]);
        } else {
            self.print(b"_");
            self.print_u64(depth);
        }
    }

    fn binder(&mut self) {
        if self.errored {
            return;
        }
        let bound = self.opt_integer_62(b'G');
        if bound > 0 && (self.skipping_printing || self.errored) {
            // Nothing is printed: only the depth changes. (Looping a count read from the
            // symbol, up to 2^64, hung on a fuzzed name.)
            self.bound_lifetime_depth = self.bound_lifetime_depth.wrapping_add(bound);
        } else if bound > 0 {
            self.print(b"for<");
            let mut i: u64 = 0;
            while i < bound {
                if i > 0 {
                    self.print(b", ");
                }
                self.bound_lifetime_depth = self.bound_lifetime_depth.wrapping_add(1);
                self.print_lifetime_from_index(1);
                if self.errored {
                    break;
                }
                i += 1;
            }
            self.print(b"> ");
        }
    }

    fn enter(&mut self) -> bool {
        self.recursion += 1;
        self.recursion <= MAX_RECURSION
    }

    fn path(&mut self, in_value: bool) {
        if self.errored {
            return;
        }
        if self.enter() {
            self.path_inner(in_value);
        } else {
            self.errored = true;
        }
        self.recursion -= 1;
    }

    fn path_inner(&mut self, in_value: bool) {
        let tag = self.next_char();
        match tag {
            b'C' => {
                let _dis = self.disambiguator();
                let name = self.ident();
                self.print_ident(name);
            }
            b'N' => {
                let ns = self.next_char();
                if !ns.is_ascii_alphabetic() {
                    self.errored = true;
                    return;
                }
                self.path(in_value);
                let dis = self.disambiguator();
                let name = self.ident();
                let has_name = name.ascii.is_some() || name.punycode.is_some();
                if ns.is_ascii_uppercase() {
                    self.print(b"::{");
                    match ns {
                        b'C' => self.print(b"closure"),
                        b'S' => self.print(b"shim"),
                        _ => self.print(&[ns]),
                    }
                    if has_name {
                        self.print(b":");
                        self.print_ident(name);
                    }
                    self.print(b"#");
                    self.print_u64(dis);
                    self.print(b"}");
                } else if has_name {
                    self.print(b"::");
                    self.print_ident(name);
                }
            }
            b'M' | b'X' | b'Y' => {
                if tag != b'Y' {
                    self.disambiguator();
                    let was = self.skipping_printing;
                    self.skipping_printing = true;
                    self.path(in_value);
                    self.skipping_printing = was;
                }
                self.print(b"<");
                self.ty();
                if tag != b'M' {
                    self.print(b" as ");
                    self.path(false);
                }
                self.print(b">");
            }
            b'I' => {
                self.path(in_value);
                if in_value {
                    self.print(b"::");
                }
                self.print(b"<");
                let mut i = 0;
                while !self.errored && !self.eat(b'E') {
                    if i > 0 {
                        self.print(b", ");
                    }
                    self.generic_arg();
                    i += 1;
                }
                self.print(b">");
            }
            b'B' => {
                let backref = self.integer_62();
                if !self.skipping_printing {
                    let old = self.next;
                    self.next = usize::try_from(backref).unwrap_or(usize::MAX);
                    self.path(in_value);
                    self.next = old;
                }
            }
            _ => self.errored = true,
        }
    }

    fn generic_arg(&mut self) {
        if self.eat(b'L') {
            let lt = self.integer_62();
            self.print_lifetime_from_index(lt);
        } else if self.eat(b'K') {
            self.konst();
        } else {
            self.ty();
        }
    }

    fn ty(&mut self) {
        if self.errored {
            return;
        }
        let tag = self.next_char();
        if let Some(basic) = basic_type(tag) {
            self.print(basic.as_bytes());
            return;
        }
        if !self.enter() {
            self.errored = true;
            self.recursion -= 1;
            return;
        }
        self.ty_inner(tag);
        self.recursion -= 1;
    }

    fn ty_inner(&mut self, tag: u8) {
        match tag {
            b'R' | b'Q' => {
                self.print(b"&");
                if self.eat(b'L') {
                    let lt = self.integer_62();
                    if lt != 0 {
                        self.print_lifetime_from_index(lt);
                        self.print(b" ");
                    }
                }
                if tag != b'R' {
                    self.print(b"mut ");
                }
                self.ty();
            }
            b'P' | b'O' => {
                self.print(b"*");
                if tag != b'P' {
                    self.print(b"mut ");
                } else {
                    self.print(b"const ");
                }
                self.ty();
            }
            b'A' | b'S' => {
                self.print(b"[");
                self.ty();
                if tag == b'A' {
                    self.print(b"; ");
                    self.konst();
                }
                self.print(b"]");
            }
            b'T' => {
                self.print(b"(");
                let mut i = 0;
                while !self.errored && !self.eat(b'E') {
                    if i > 0 {
                        self.print(b", ");
                    }
                    self.ty();
                    i += 1;
                }
                if i == 1 {
                    self.print(b",");
                }
                self.print(b")");
            }
            b'F' => {
                let old_depth = self.bound_lifetime_depth;
                self.fn_sig();
                self.bound_lifetime_depth = old_depth;
            }
            b'D' => {
                self.print(b"dyn ");
                let old_depth = self.bound_lifetime_depth;
                self.binder();
                let mut i = 0;
                while !self.errored && !self.eat(b'E') {
                    if i > 0 {
                        self.print(b" + ");
                    }
                    self.dyn_trait();
                    i += 1;
                }
                self.bound_lifetime_depth = old_depth;
                if !self.eat(b'L') {
                    self.errored = true;
                    return;
                }
                let lt = self.integer_62();
                if lt != 0 {
                    self.print(b" + ");
                    self.print_lifetime_from_index(lt);
                }
            }
            b'B' => {
                let backref = self.integer_62();
                if !self.skipping_printing {
                    let old = self.next;
                    self.next = usize::try_from(backref).unwrap_or(usize::MAX);
                    self.ty();
                    self.next = old;
                }
            }
            _ => {
                // Back to the tag, so that the path sees it.
                self.next = self.next.saturating_sub(1);
                self.path(false);
            }
        }
    }

    fn fn_sig(&mut self) {
        self.binder();
        if self.eat(b'U') {
            self.print(b"unsafe ");
        }
        if self.eat(b'K') {
            let abi: &[u8] = if self.eat(b'C') {
                b"C"
            } else {
                let abi = self.ident();
                match (abi.ascii, abi.punycode) {
                    (Some(a), None) => a,
                    _ => {
                        self.errored = true;
                        return;
                    }
                }
            };
            self.print(b"extern \"");
            // '-' in the ABI name was mangled as '_'.  As libiberty does, the character just
            // after each '_' is not itself checked for being one.
            let mut abi = abi;
            let mut i = 0;
            while i < abi.len() {
                if abi.get(i) == Some(&b'_') {
                    self.print(abi.get(..i).unwrap_or_default());
                    self.print(b"-");
                    abi = abi.get(i + 1..).unwrap_or_default();
                    i = 0;
                }
                i += 1;
            }
            self.print(abi);
            self.print(b"\" ");
        }
        self.print(b"fn(");
        let mut i = 0;
        while !self.errored && !self.eat(b'E') {
            if i > 0 {
                self.print(b", ");
            }
            self.ty();
            i += 1;
        }
        self.print(b")");
        if !self.eat(b'u') {
            self.print(b" -> ");
            self.ty();
        }
    }

    fn path_maybe_open_generics(&mut self) -> bool {
        let mut open = false;
        if self.errored {
            return open;
        }
        if !self.enter() {
            self.errored = true;
            self.recursion -= 1;
            return open;
        }
        if self.eat(b'B') {
            let backref = self.integer_62();
            if !self.skipping_printing {
                let old = self.next;
                self.next = usize::try_from(backref).unwrap_or(usize::MAX);
                open = self.path_maybe_open_generics();
                self.next = old;
            }
        } else if self.eat(b'I') {
            self.path(false);
            self.print(b"<");
            open = true;
            let mut i = 0;
            while !self.errored && !self.eat(b'E') {
                if i > 0 {
                    self.print(b", ");
                }
                self.generic_arg();
                i += 1;
            }
        } else {
            self.path(false);
        }
        self.recursion -= 1;
        open
    }

    fn dyn_trait(&mut self) {
        if self.errored {
            return;
        }
        let mut open = self.path_maybe_open_generics();
        while self.eat(b'p') {
            if !open {
                self.print(b"<");
            } else {
                self.print(b", ");
            }
            open = true;
            let name = self.ident();
            self.print_ident(name);
            self.print(b" = ");
            self.ty();
            if self.errored {
                break;
            }
        }
        if open {
            self.print(b">");
        }
    }

    fn konst(&mut self) {
        if self.errored {
            return;
        }
        if !self.enter() {
            self.errored = true;
            self.recursion -= 1;
            return;
        }
        self.konst_inner();
        self.recursion -= 1;
    }

    fn konst_inner(&mut self) {
        if self.eat(b'B') {
            let backref = self.integer_62();
            if !self.skipping_printing {
                let old = self.next;
                self.next = usize::try_from(backref).unwrap_or(usize::MAX);
                self.konst();
                self.next = old;
            }
            return;
        }
        let ty_tag = self.next_char();
        match ty_tag {
            b'p' => self.print(b"_"),
            b'h' | b't' | b'm' | b'y' | b'o' | b'j' => self.const_uint(),
            b'a' | b's' | b'l' | b'x' | b'n' | b'i' => {
                if self.eat(b'n') {
                    self.print(b"-");
                }
                self.const_uint();
            }
            b'b' => {
                let (len, value) = self.hex_nibbles();
                if len != 1 {
                    self.errored = true;
                } else if value == 0 {
                    self.print(b"false");
                } else if value == 1 {
                    self.print(b"true");
                } else {
                    self.errored = true;
                }
            }
            b'c' => self.const_char(),
            _ => self.errored = true,
        }
    }

    fn const_uint(&mut self) {
        if self.errored {
            return;
        }
        let (len, value) = self.hex_nibbles();
        if len > 16 {
            self.print(b"0x");
            let digits = self
                .sym
                // libiberty's slice: it starts one digit late and takes the '_' in.
                .get(self.next.saturating_sub(len)..self.next)
                .unwrap_or_default();
            self.print(digits);
        } else if len > 0 {
            self.print_u64(value);
        } else {
            self.errored = true;
        }
    }

    fn const_char(&mut self) {
        let (len, value) = self.hex_nibbles();
        if len == 0 || len > 8 {
            self.errored = true;
            return;
        }
        self.print(b"'");
        match value {
            0x09 => self.print(b"\\t"),
            0x0d => self.print(b"\\r"),
            0x0a => self.print(b"\\n"),
            0x21..=0x7d => self.print(&[value as u8]),
            _ => {
                self.print(b"\\u{");
                self.print(format!("{value:x}").as_bytes());
                self.print(b"}");
            }
        }
        self.print(b"'");
    }

    fn legacy(&mut self) -> Option<()> {
        let len = legacy_hash_end(self.sym)?;
        self.sym = self.sym.get(..len)?;
        let mut ident;
        loop {
            ident = self.ident();
            if self.errored || ident.ascii.is_none() {
                return None;
            }
            if self.next >= self.sym.len() {
                break;
            }
        }
        if !is_legacy_prefixed_hash(&ident) {
            return None;
        }
        self.next = 0;
        self.sym = self.sym.get(..len - 19)?;
        loop {
            if self.next > 0 {
                self.print(b"::");
            }
            let ident = self.ident();
            self.print_ident(ident);
            if self.next >= self.sym.len() || self.errored {
                break;
            }
        }
        Some(())
    }
}

/// The length of a legacy name (after `_ZN`) without its final `E` and any `.suffix`, if it
/// ends with a `17h` hash segment there.
fn legacy_hash_end(sym: &[u8]) -> Option<usize> {
    // Legacy symbols end with 'E', possibly followed by a '.suffix'.
    let mut len = sym.len();
    let mut dot_suffix = true;
    while len > 0 && !(dot_suffix && sym.get(len - 1) == Some(&b'E')) {
        dot_suffix = sym.get(len - 1) == Some(&b'.');
        len -= 1;
    }
    if !(len > 0 && sym.get(len - 1) == Some(&b'E')) {
        return None;
    }
    len -= 1;
    if !(len > 19 && sym.get(len - 19..len - 16) == Some(b"17h")) {
        return None;
    }
    Some(len)
}

/// Decodes punycode as libiberty does: `Ok(None)` when the deltas are cut short (libiberty
/// then prints nothing for the identifier), `Err` on invalid input.
fn decode_punycode(ascii: &[u8], punycode: &[u8]) -> Result<Option<Vec<u8>>, ()> {
    const BASE: u64 = 36;
    const T_MIN: u64 = 1;
    const T_MAX: u64 = 26;
    const SKEW: u64 = 38;
    let mut damp: u64 = 700;
    let mut bias: u64 = 72;
    // Each code point is a group of 4 UTF-8 bytes, zero-padded in front, as libiberty keeps
    // them.
    let mut out: Vec<[u8; 4]> = ascii.iter().map(|&b| [0, 0, 0, b]).collect();
    let mut i: u64 = 0;
    let mut c: u64 = 0x80;
    let mut pos = 0;
    while pos < punycode.len() {
        let mut delta: u64 = 0;
        let mut w: u64 = 1;
        let mut k: u64 = 0;
        loop {
            k = k.wrapping_add(BASE);
            let t = k.saturating_sub(bias).clamp(T_MIN, T_MAX);
            let Some(&d) = punycode.get(pos) else {
                return Ok(None);
            };
            pos += 1;
            let d = match d {
                b'a'..=b'z' => u64::from(d - b'a'),
                b'0'..=b'9' => 26 + u64::from(d - b'0'),
                _ => return Err(()),
            };
            delta = delta.wrapping_add(d.wrapping_mul(w));
            w = w.wrapping_mul(BASE - t);
            if d < t {
                break;
            }
        }
        let len = out.len() as u64 + 1;
        i = i.wrapping_add(delta);
        c = c.wrapping_add(i / len);
        i %= len;
        if out.len() >= MAX_OUTPUT {
            return Err(());
        }
        // libiberty's encoding: a 32-bit code point, no check for surrogates or range.
        let cp = (c & 0xffff_ffff) as u32;
        let group = [
            if cp >= 0x10000 {
                (0xf0 | (cp >> 18)) as u8
            } else {
                0
            },
            if cp >= 0x800 {
                ((if cp < 0x10000 { 0xe0 } else { 0x80 }) | ((cp >> 12) & 0x3f)) as u8
            } else {
                0
            },
            ((if cp < 0x800 { 0xc0 } else { 0x80 }) | ((cp >> 6) & 0x3f)) as u8,
            (0x80 | (cp & 0x3f)) as u8,
        ];
        let at = usize::try_from(i).map_err(|_| ())?;
        if at > out.len() {
            return Err(());
        }
        out.insert(at, group);
        if pos == punycode.len() {
            break;
        }
        i += 1;
        delta /= damp;
        damp = 2;
        delta = delta.wrapping_add(delta / len);
        k = 0;
        while delta > ((BASE - T_MIN) * T_MAX) / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        bias = k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW);
    }
    Ok(Some(
        out.iter().flatten().copied().filter(|&b| b != 0).collect(),
    ))
}
