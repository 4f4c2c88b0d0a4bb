//! An Itanium C++ ABI demangler whose output is the one of GNU libiberty's `cp-demangle.c` (as
//! in binutils 2.40) called with `DMGL_PARAMS | DMGL_ANSI`, which is what `nm --demangle`,
//! `addr2line -C` and `c++filt -i` print.
//!
//! This is an independent implementation written from the behaviour that libiberty documents
//! and shows: the mangled name is parsed into a tree of components (names, types, template
//! arguments, expressions) and the tree is then printed, with template parameters resolved,
//! modifiers (pointers, references, cv-qualifiers, function and array types) placed around
//! declarators, and libiberty's spelling choices (`std::string`, `{lambda(int)#1}`,
//! `[abi:cxx11]`, `[clone .constprop.0]`, ...).  Its limits are libiberty's: names longer
//! than 1024 bytes are not demangled (libiberty's recursion limit), and printing fails past
//! 1024 nested components, so the caller keeps the mangled name.  Everything here is
//! bounds-checked and never panics on arbitrary input.

/// Longest output produced before giving up (libiberty has no limit, but a 1 KiB name whose
/// substitutions nest can expand exponentially).
const MAX_OUTPUT: usize = 1 << 20;
/// Most components printed before giving up, for the same reason.
const MAX_WORK: u32 = 4_000_000;
/// libiberty's `DEMANGLE_RECURSION_LIMIT`.
const RECURSION_LIMIT: usize = 2048;
/// The size of libiberty's print buffer (`D_PRINT_BUFFER_LENGTH`).
const PRINT_BUFFER: usize = 256;
/// libiberty's `MAX_RECURSION_COUNT` for printing.
const MAX_PRINT_RECURSION: i32 = 1024;
/// A guard on the parser's recursion, well above what 1024 bytes can nest.
const MAX_PARSE_DEPTH: u32 = 1500;

type Id = u32;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    Name,
    QualName,
    LocalName,
    TypedName,
    TaggedName,
    Template,
    TemplateParam,
    FunctionParam,
    Ctor,
    Dtor,
    Vtable,
    Vtt,
    ConstructionVtable,
    Typeinfo,
    TypeinfoName,
    TypeinfoFn,
    Thunk,
    VirtualThunk,
    CovariantThunk,
    JavaClass,
    Guard,
    TlsInit,
    TlsWrapper,
    Reftemp,
    HiddenAlias,
    SubStd,
    Restrict,
    Volatile,
    Const,
    RestrictThis,
    VolatileThis,
    ConstThis,
    ReferenceThis,
    RvalueReferenceThis,
    TransactionSafe,
    Noexcept,
    ThrowSpec,
    VendorTypeQual,
    Pointer,
    Reference,
    RvalueReference,
    Complex,
    Imaginary,
    BuiltinType,
    ExtendedBuiltinType,
    VendorType,
    FunctionType,
    ArrayType,
    PtrmemType,
    VectorType,
    Arglist,
    TemplateArglist,
    TparmObj,
    InitializerList,
    Operator,
    ExtendedOperator,
    Cast,
    Conversion,
    Nullary,
    Unary,
    Binary,
    BinaryArgs,
    Trinary,
    TrinaryArg1,
    TrinaryArg2,
    Literal,
    LiteralNeg,
    VendorExpr,
    JavaResource,
    CompoundName,
    Character,
    Number,
    Decltype,
    GlobalConstructors,
    GlobalDestructors,
    Lambda,
    DefaultArg,
    UnnamedType,
    TransactionClone,
    NontransactionClone,
    PackExpansion,
    Clone,
    StructuredBinding,
    ModuleName,
    ModulePartition,
    ModuleEntity,
    ModuleInit,
    TemplateHead,
    TemplateTypeParm,
    TemplateNonTypeParm,
    TemplateTemplateParm,
    TemplatePackParm,
}

fn is_fnqual(k: K) -> bool {
    matches!(
        k,
        K::RestrictThis
            | K::VolatileThis
            | K::ConstThis
            | K::ReferenceThis
            | K::RvalueReferenceThis
            | K::TransactionSafe
            | K::Noexcept
            | K::ThrowSpec
    )
}

#[derive(Clone, Copy, Debug)]
struct Node<'a> {
    kind: K,
    l: Option<Id>,
    r: Option<Id>,
    /// Template parameter index, lambda/unnamed-type number, ctor/dtor kind, extended
    /// operator arity, extended builtin type size.
    num: i32,
    /// Name text.
    s: &'a [u8],
    /// Builtin type or operator table index.
    aux: u8,
    /// Extended builtin type suffix, or the character of a `Character`.
    ch: u8,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PrintKind {
    Default,
    Int,
    Unsigned,
    Long,
    UnsignedLong,
    LongLong,
    UnsignedLongLong,
    Bool,
    Float,
    Void,
}

/// libiberty's builtin types: indexed by letter `a`..`z`, then the `D` codes.
const BUILTINS: [(&str, PrintKind); 36] = [
    ("signed char", PrintKind::Default),
    ("bool", PrintKind::Bool),
    ("char", PrintKind::Default),
    ("double", PrintKind::Float),
    ("long double", PrintKind::Float),
    ("float", PrintKind::Float),
    ("__float128", PrintKind::Float),
    ("unsigned char", PrintKind::Default),
    ("int", PrintKind::Int),
    ("unsigned int", PrintKind::Unsigned),
    ("", PrintKind::Default),
    ("long", PrintKind::Long),
    ("unsigned long", PrintKind::UnsignedLong),
    ("__int128", PrintKind::Default),
    ("unsigned __int128", PrintKind::Default),
    ("", PrintKind::Default),
    ("", PrintKind::Default),
    ("", PrintKind::Default),
    ("short", PrintKind::Default),
    ("unsigned short", PrintKind::Default),
    ("", PrintKind::Default),
    ("void", PrintKind::Void),
    ("wchar_t", PrintKind::Default),
    ("long long", PrintKind::LongLong),
    ("unsigned long long", PrintKind::UnsignedLongLong),
    ("...", PrintKind::Default),
    ("decimal32", PrintKind::Default),
    ("decimal64", PrintKind::Default),
    ("decimal128", PrintKind::Default),
    ("half", PrintKind::Float),
    ("char8_t", PrintKind::Default),
    ("char16_t", PrintKind::Default),
    ("char32_t", PrintKind::Default),
    ("decltype(nullptr)", PrintKind::Default),
    ("_Float", PrintKind::Float),
    ("std::bfloat16_t", PrintKind::Float),
];

const NULLPTR_TYPE: u8 = 33;

/// Operators: mangled code, printed name, arity.
const OPS: [(&[u8; 2], &str, i32); 72] = [
    (b"aN", "&=", 2),
    (b"aS", "=", 2),
    (b"aa", "&&", 2),
    (b"ad", "&", 1),
    (b"an", "&", 2),
    (b"at", "alignof ", 1),
    (b"aw", "co_await ", 1),
    (b"az", "alignof ", 1),
    (b"cc", "const_cast", 2),
    (b"cl", "()", 2),
    (b"cm", ",", 2),
    (b"co", "~", 1),
    (b"dV", "/=", 2),
    (b"dX", "[...]=", 3),
    (b"da", "delete[] ", 1),
    (b"dc", "dynamic_cast", 2),
    (b"de", "*", 1),
    (b"di", "=", 2),
    (b"dl", "delete ", 1),
    (b"ds", ".*", 2),
    (b"dt", ".", 2),
    (b"dv", "/", 2),
    (b"dx", "]=", 2),
    (b"eO", "^=", 2),
    (b"eo", "^", 2),
    (b"eq", "==", 2),
    (b"fL", "...", 3),
    (b"fR", "...", 3),
    (b"fl", "...", 2),
    (b"fr", "...", 2),
    (b"ge", ">=", 2),
    (b"gs", "::", 1),
    (b"gt", ">", 2),
    (b"ix", "[]", 2),
    (b"lS", "<<=", 2),
    (b"le", "<=", 2),
    (b"li", "operator\"\" ", 1),
    (b"ls", "<<", 2),
    (b"lt", "<", 2),
    (b"mI", "-=", 2),
    (b"mL", "*=", 2),
    (b"mi", "-", 2),
    (b"ml", "*", 2),
    (b"mm", "--", 1),
    (b"na", "new[]", 3),
    (b"ne", "!=", 2),
    (b"ng", "-", 1),
    (b"nt", "!", 1),
    (b"nw", "new", 3),
    (b"oR", "|=", 2),
    (b"oo", "||", 2),
    (b"or", "|", 2),
    (b"pL", "+=", 2),
    (b"pl", "+", 2),
    (b"pm", "->*", 2),
    (b"pp", "++", 1),
    (b"ps", "+", 1),
    (b"pt", "->", 2),
    (b"qu", "?", 3),
    (b"rM", "%=", 2),
    (b"rS", ">>=", 2),
    (b"rc", "reinterpret_cast", 2),
    (b"rm", "%", 2),
    (b"rs", ">>", 2),
    (b"sP", "sizeof...", 1),
    (b"sZ", "sizeof...", 1),
    (b"sc", "static_cast", 2),
    (b"ss", "<=>", 2),
    (b"st", "sizeof ", 1),
    (b"sz", "sizeof ", 1),
    (b"tr", "throw", 0),
    (b"tw", "throw ", 1),
];

fn op_code(i: u8) -> &'static [u8; 2] {
    OPS.get(usize::from(i)).map_or(b"\0\0", |o| o.0)
}
fn op_name(i: u8) -> &'static str {
    OPS.get(usize::from(i)).map_or("", |o| o.1)
}
fn op_args(i: u8) -> i32 {
    OPS.get(usize::from(i)).map_or(0, |o| o.2)
}

/// Standard substitutions: code, simple expansion, full expansion, name for ctors/dtors.
const STD_SUBS: [(u8, &str, &str, Option<&str>); 7] = [
    (b't', "std", "std", None),
    (b'a', "std::allocator", "std::allocator", Some("allocator")),
    (
        b'b',
        "std::basic_string",
        "std::basic_string",
        Some("basic_string"),
    ),
    (
        b's',
        "std::string",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        Some("basic_string"),
    ),
    (
        b'i',
        "std::istream",
        "std::basic_istream<char, std::char_traits<char> >",
        Some("basic_istream"),
    ),
    (
        b'o',
        "std::ostream",
        "std::basic_ostream<char, std::char_traits<char> >",
        Some("basic_ostream"),
    ),
    (
        b'd',
        "std::iostream",
        "std::basic_iostream<char, std::char_traits<char> >",
        Some("basic_iostream"),
    ),
];

/// Demangles an Itanium C++ ABI name (`_Z...`, or `_GLOBAL_[._$][ID]_...`) the way libiberty's
/// `cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI)` does, or returns `None` where it fails.
pub fn demangle(name: &[u8]) -> Option<String> {
    if let Some(d) = simple(name) {
        return Some(d);
    }
    full(name)
}

/// The builtin type of one letter that [`simple`] prints ([`BUILTINS`]; not `z`, the
/// ellipsis, nor a vendor's `u`, both left to the full demangler).
fn builtin(c: u8) -> Option<&'static str> {
    if !c.is_ascii_lowercase() || c == b'z' {
        return None;
    }
    BUILTINS
        .get(usize::from(c - b'a'))
        .map(|b| b.0)
        .filter(|n| !n.is_empty())
}

/// The most common shape of a C++ function's name, demangled without the parser's tree of
/// components: `_Z`, a name (a source name, or `N`, source names, `E`), then parameter
/// types that are builtin types or names, each under pointers (`P`), `const` (`K`) and one
/// outermost reference (`R`, `O`); or no parameters at all (a variable). `None` for
/// anything else (templates, operators, constructors, substitutions, qualifiers of member
/// functions, clone suffixes, anonymous namespaces, bytes that are not ASCII...), which the
/// full demangler then reads; where this answers, it answers what the full one does (the
/// tests check both on binutils' vectors and on random names).
fn simple(name: &[u8]) -> Option<String> {
    let mut rest = name.strip_prefix(b"_Z")?;
    if 2 * name.len() > RECURSION_LIMIT {
        return None;
    }
    let mut out = String::with_capacity(name.len() * 2);
    simple_name(&mut rest, &mut out)?;
    if rest.is_empty() {
        return Some(out);
    }
    out.push('(');
    if rest == b"v" {
        out.push(')');
        return Some(out);
    }
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            out.push_str(", ");
        }
        first = false;
        simple_type(&mut rest, &mut out)?;
    }
    out.push(')');
    Some(out)
}

/// One parameter type for [`simple`], written to `out`.
fn simple_type(rest: &mut &[u8], out: &mut String) -> Option<()> {
    // The modifiers, outermost first: an optional reference, then pointers and consts.
    let reference = match rest.first() {
        Some(b'R') => Some("&"),
        Some(b'O') => Some("&&"),
        _ => None,
    };
    if reference.is_some() {
        *rest = rest.get(1..)?;
    }
    let n = rest.iter().take_while(|&&c| c == b'P' || c == b'K').count();
    let (mods, tail) = rest.split_at_checked(n)?;
    if mods.windows(2).any(|w| w == b"KK") {
        return None;
    }
    *rest = tail;
    match rest.first() {
        Some(c) if c.is_ascii_digit() || *c == b'N' => simple_name(rest, out)?,
        // `void` alone is `()`; `...` and `void` as one parameter of several are left to
        // the full demangler.
        Some(&c) if c != b'v' || !mods.is_empty() => {
            out.push_str(builtin(c)?);
            *rest = rest.get(1..)?;
        }
        _ => return None,
    }
    for &m in mods.iter().rev() {
        out.push_str(if m == b'K' { " const" } else { "*" });
    }
    if let Some(r) = reference {
        out.push_str(r);
    }
    Some(())
}

/// A source name, or `N`, source names, `E`, for [`simple`], written to `out` joined by
/// `::`.
fn simple_name(rest: &mut &[u8], out: &mut String) -> Option<()> {
    if let Some(r) = rest.strip_prefix(b"N") {
        *rest = r;
        let mut first = true;
        while rest.first() != Some(&b'E') {
            if !first {
                out.push_str("::");
            }
            first = false;
            simple_source_name(rest, out)?;
        }
        *rest = rest.get(1..)?;
        return if first { None } else { Some(()) };
    }
    simple_source_name(rest, out)
}

/// `<length><identifier>` for [`simple`]: ASCII, not libiberty's `_GLOBAL_` names.
fn simple_source_name(rest: &mut &[u8], out: &mut String) -> Option<()> {
    let mut len = 0usize;
    let mut digits = 0;
    while let Some(&c) = rest.get(digits).filter(|c| c.is_ascii_digit()) {
        if digits == 4 {
            return None;
        }
        len = len * 10 + usize::from(c - b'0');
        digits += 1;
    }
    if digits == 0 || rest.first() == Some(&b'0') {
        return None;
    }
    let id = rest.get(digits..digits + len)?;
    if id.starts_with(b"_GLOBAL_") || !id.iter().all(|c| c.is_ascii_graphic()) {
        return None;
    }
    out.push_str(std::str::from_utf8(id).ok()?);
    *rest = rest.get(digits + len..)?;
    Some(())
}

/// The full demangler: [`demangle`] for every name.
fn full(name: &[u8]) -> Option<String> {
    // A C string ends at its first NUL.
    let name = match name.iter().position(|&c| c == 0) {
        Some(i) => name.get(..i).unwrap_or_default(),
        None => name,
    };
    let g = |i: usize| name.get(i).copied().unwrap_or(0);
    enum Ty {
        Mangled,
        Ctors,
        Dtors,
    }
    let ty = if name.starts_with(b"_Z") {
        Ty::Mangled
    } else if name.starts_with(b"_GLOBAL_")
        && matches!(g(8), b'.' | b'_' | b'$')
        && matches!(g(9), b'D' | b'I')
        && g(10) == b'_'
    {
        if g(9) == b'I' { Ty::Ctors } else { Ty::Dtors }
    } else {
        return None;
    };
    // libiberty refuses names whose component array would exceed its recursion limit.
    if 2 * name.len() > RECURSION_LIMIT {
        return None;
    }
    let mut unresolved_state = 1;
    loop {
        let mut p = Parser::new(name, unresolved_state);
        let dc = match ty {
            Ty::Mangled => p.mangled_name(true),
            Ty::Ctors | Ty::Dtors => {
                p.advance(11);
                let inner = p.make_demangle_mangled_name();
                let k = if matches!(ty, Ty::Ctors) {
                    K::GlobalConstructors
                } else {
                    K::GlobalDestructors
                };
                let dc = p.make(k, inner, None);
                p.pos = name.len();
                dc
            }
        };
        let dc = if p.peek() != 0 { None } else { dc };
        match dc {
            Some(root) => {
                let nodes = p.finish();
                return Printer::print(&nodes, root);
            }
            None if p.unresolved_name_state == -1 => {
                unresolved_state = 0;
            }
            None => return None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    nodes: Vec<Node<'a>>,
    next_comp: usize,
    num_comps: usize,
    subs: Vec<Id>,
    next_sub: usize,
    num_subs: usize,
    last_name: Option<Id>,
    is_expression: bool,
    is_conversion: bool,
    unresolved_name_state: i32,
    recursion_level: usize,
    depth: u32,
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}
fn is_upper(c: u8) -> bool {
    c.is_ascii_uppercase()
}
fn is_lower(c: u8) -> bool {
    c.is_ascii_lowercase()
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8], unresolved_name_state: i32) -> Self {
        Parser {
            s,
            pos: 0,
            nodes: Vec::with_capacity(s.len()),
            next_comp: 0,
            num_comps: 2 * s.len(),
            subs: Vec::with_capacity(16),
            next_sub: 0,
            num_subs: s.len(),
            last_name: None,
            is_expression: false,
            is_conversion: false,
            unresolved_name_state,
            recursion_level: 0,
            depth: 0,
        }
    }

    fn finish(mut self) -> Vec<Node<'a>> {
        self.nodes.truncate(self.next_comp);
        self.nodes
    }

    fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }
    fn peek_next(&self) -> u8 {
        self.s.get(self.pos + 1).copied().unwrap_or(0)
    }
    fn advance(&mut self, i: usize) {
        self.pos = (self.pos + i).min(self.s.len());
    }
    fn check(&mut self, c: u8) -> bool {
        if self.peek() == c {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn next_char(&mut self) -> u8 {
        let c = self.peek();
        if c != 0 {
            self.pos += 1;
        }
        c
    }
    fn rest(&self) -> &'a [u8] {
        self.s.get(self.pos..).unwrap_or_default()
    }

    fn node(&self, id: Id) -> Option<&Node<'a>> {
        self.nodes.get(id as usize)
    }
    fn kind(&self, id: Id) -> Option<K> {
        self.node(id).map(|n| n.kind)
    }
    fn left(&self, id: Id) -> Option<Id> {
        self.node(id).and_then(|n| n.l)
    }
    fn right(&self, id: Id) -> Option<Id> {
        self.node(id).and_then(|n| n.r)
    }
    fn set_left(&mut self, id: Id, v: Option<Id>) {
        if let Some(n) = self.nodes.get_mut(id as usize) {
            n.l = v;
        }
    }
    fn set_right(&mut self, id: Id, v: Option<Id>) {
        if let Some(n) = self.nodes.get_mut(id as usize) {
            n.r = v;
        }
    }
    fn set_kind(&mut self, id: Id, k: K) {
        if let Some(n) = self.nodes.get_mut(id as usize) {
            n.kind = k;
        }
    }

    /// Takes the next component slot, as libiberty's `d_make_empty` (slots given back by a
    /// backtrack are reused).
    fn empty(&mut self, node: Node<'a>) -> Option<Id> {
        if self.next_comp >= self.num_comps {
            return None;
        }
        let id = self.next_comp;
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = node;
        } else {
            self.nodes.push(node);
        }
        self.next_comp += 1;
        Id::try_from(id).ok()
    }

    fn blank(kind: K) -> Node<'a> {
        Node {
            kind,
            l: None,
            r: None,
            num: 0,
            s: b"",
            aux: 0,
            ch: 0,
        }
    }

    /// libiberty's `d_make_comp`, with its checks of which operands may be missing.
    fn make(&mut self, kind: K, l: Option<Id>, r: Option<Id>) -> Option<Id> {
        use K::*;
        match kind {
            QualName | LocalName | TypedName | TaggedName | Template | ConstructionVtable
            | VendorTypeQual | PtrmemType | Unary | Binary | BinaryArgs | Trinary | TrinaryArg1
            | Literal | LiteralNeg | VendorExpr | CompoundName | VectorType | Clone
            | ModuleEntity => {
                l?;
                r?;
            }
            Vtable | Vtt | Typeinfo | TypeinfoName | TypeinfoFn | Thunk | VirtualThunk
            | CovariantThunk | JavaClass | Guard | TlsInit | TlsWrapper | Reftemp | HiddenAlias
            | TransactionClone | NontransactionClone | Pointer | Reference | RvalueReference
            | Complex | Imaginary | VendorType | Cast | Conversion | JavaResource | Decltype
            | PackExpansion | GlobalConstructors | GlobalDestructors | Nullary | TrinaryArg2
            | TparmObj | StructuredBinding | ModuleInit | TemplateHead | TemplateNonTypeParm
            | TemplateTemplateParm | TemplatePackParm => {
                l?;
            }
            ArrayType | InitializerList | ModuleName | ModulePartition => {
                r?;
            }
            FunctionType | Restrict | Volatile | Const | Arglist | TemplateArglist
            | TemplateTypeParm => {}
            k if is_fnqual(k) => {}
            _ => return None,
        }
        let mut n = Self::blank(kind);
        n.l = l;
        n.r = r;
        self.empty(n)
    }

    fn make_name(&mut self, s: &'a [u8]) -> Option<Id> {
        let mut n = Self::blank(K::Name);
        n.s = s;
        let id = self.empty(n)?;
        if s.is_empty() {
            return None;
        }
        Some(id)
    }

    fn make_num(&mut self, kind: K, num: i32) -> Option<Id> {
        let mut n = Self::blank(kind);
        n.num = num;
        self.empty(n)
    }

    fn make_builtin(&mut self, idx: u8) -> Option<Id> {
        let mut n = Self::blank(K::BuiltinType);
        n.aux = idx;
        self.empty(n)
    }

    fn make_with_sub(&mut self, kind: K, num: i32, sub: Option<Id>) -> Option<Id> {
        let mut n = Self::blank(kind);
        n.num = num;
        n.l = sub;
        self.empty(n)
    }

    fn make_sub(&mut self, s: &'static str) -> Option<Id> {
        let mut n = Self::blank(K::SubStd);
        n.s = s.as_bytes();
        self.empty(n)
    }

    fn add_sub(&mut self, dc: Option<Id>) -> bool {
        let Some(dc) = dc else { return false };
        if self.next_sub >= self.num_subs {
            return false;
        }
        if let Some(slot) = self.subs.get_mut(self.next_sub) {
            *slot = dc;
        } else {
            self.subs.push(dc);
        }
        self.next_sub += 1;
        true
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_PARSE_DEPTH {
            None
        } else {
            Some(())
        }
    }
    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn make_demangle_mangled_name(&mut self) -> Option<Id> {
        if self.peek() != b'_' || self.peek_next() != b'Z' {
            let rest = self.rest();
            return self.make_name(rest);
        }
        self.advance(2);
        self.encoding(false)
    }

    fn mangled_name(&mut self, top_level: bool) -> Option<Id> {
        if !self.check(b'_') && top_level {
            return None;
        }
        if !self.check(b'Z') {
            return None;
        }
        let mut p = self.encoding(top_level);
        if top_level {
            while self.peek() == b'.'
                && (is_lower(self.peek_next())
                    || self.peek_next() == b'_'
                    || is_digit(self.peek_next()))
            {
                p = self.clone_suffix(p);
            }
        }
        p
    }

    fn has_return_type(&self, dc: Option<Id>) -> bool {
        let Some(dc) = dc else { return false };
        match self.kind(dc) {
            Some(K::LocalName) => self.has_return_type(self.right(dc)),
            Some(K::Template) => !self.is_ctor_dtor_or_conversion(self.left(dc)),
            Some(k) if is_fnqual(k) => self.has_return_type(self.left(dc)),
            _ => false,
        }
    }

    fn is_ctor_dtor_or_conversion(&self, dc: Option<Id>) -> bool {
        let mut dc = dc;
        // Iterative: qualified names nest to the left, so only the right side is followed.
        for _ in 0..RECURSION_LIMIT {
            let Some(id) = dc else { return false };
            match self.kind(id) {
                Some(K::QualName | K::LocalName) => dc = self.right(id),
                Some(K::Ctor | K::Dtor | K::Conversion) => return true,
                _ => return false,
            }
        }
        false
    }

    fn encoding(&mut self, top_level: bool) -> Option<Id> {
        self.enter()?;
        let r = self.encoding_inner(top_level);
        self.leave();
        r
    }

    fn encoding_inner(&mut self, top_level: bool) -> Option<Id> {
        let peek = self.peek();
        if peek == b'G' || peek == b'T' {
            return self.special_name();
        }
        let dc = self.name(false)?;
        let peek = self.peek();
        if peek == 0 || peek == b'E' {
            return Some(dc);
        }
        let hrt = self.has_return_type(Some(dc));
        let ftype = self.bare_function_type(hrt)?;
        if !top_level
            && self.kind(dc) == Some(K::LocalName)
            && self.kind(ftype) == Some(K::FunctionType)
        {
            self.set_left(ftype, None);
        }
        self.make(K::TypedName, Some(dc), Some(ftype))
    }

    fn abi_tags(&mut self, dc: Option<Id>) -> Option<Id> {
        let hold = self.last_name;
        let mut dc = dc;
        while self.peek() == b'B' {
            self.advance(1);
            let tag = self.source_name();
            dc = self.make(K::TaggedName, dc, tag);
        }
        self.last_name = hold;
        dc
    }

    fn name(&mut self, substable: bool) -> Option<Id> {
        self.enter()?;
        let r = self.name_inner(substable);
        self.leave();
        r
    }

    fn name_inner(&mut self, substable: bool) -> Option<Id> {
        let peek = self.peek();
        let mut dc: Option<Id> = None;
        let mut subst = false;
        match peek {
            b'N' => dc = self.nested_name(),
            b'Z' => dc = self.local_name(),
            b'U' => dc = self.unqualified_name(None, None),
            _ => {
                let mut module = None;
                if peek == b'S' {
                    if self.peek_next() == b't' {
                        self.advance(2);
                        dc = self.make_name(b"std");
                    }
                    if self.peek() == b'S' {
                        let m = self.substitution(false)?;
                        if matches!(self.kind(m), Some(K::ModuleName | K::ModulePartition)) {
                            module = Some(m);
                        } else {
                            if dc.is_some() {
                                return None;
                            }
                            subst = true;
                            dc = Some(m);
                        }
                    }
                }
                if !subst {
                    dc = self.unqualified_name(dc, module);
                }
                if self.peek() == b'I' {
                    if !subst && !self.add_sub(dc) {
                        return None;
                    }
                    let args = self.template_args();
                    dc = self.make(K::Template, dc, args);
                    subst = false;
                }
            }
        }
        if substable && !subst && !self.add_sub(dc) {
            return None;
        }
        dc
    }

    fn nested_name(&mut self) -> Option<Id> {
        if !self.check(b'N') {
            return None;
        }
        let (mut ret, hole) = self.cv_qualifiers(true)?;
        let rqual = self.ref_qualifier(None);
        let prefix = self.prefix(true)?;
        match hole {
            Some(h) => self.set_left(h, Some(prefix)),
            None => ret = Some(prefix),
        }
        if let Some(rq) = rqual {
            self.set_left(rq, ret);
            ret = Some(rq);
        }
        if !self.check(b'E') {
            return None;
        }
        ret
    }

    fn prefix(&mut self, substable: bool) -> Option<Id> {
        let mut ret: Option<Id> = None;
        loop {
            let peek = self.peek();
            if peek == b'D' && matches!(self.peek_next(), b'T' | b't') {
                if ret.is_some() {
                    return None;
                }
                ret = self.cplus_type();
            } else if peek == b'I' {
                ret?;
                let dc = self.template_args()?;
                ret = self.make(K::Template, ret, Some(dc));
            } else if peek == b'T' {
                if ret.is_some() {
                    return None;
                }
                ret = self.template_param();
            } else if peek == b'M' {
                self.advance(1);
                continue;
            } else {
                let mut module = None;
                if peek == b'S' {
                    let m = self.substitution(true)?;
                    if matches!(self.kind(m), Some(K::ModuleName | K::ModulePartition)) {
                        module = Some(m);
                    } else {
                        if ret.is_some() {
                            return None;
                        }
                        ret = Some(m);
                        continue;
                    }
                }
                ret = self.unqualified_name(ret, module);
            }
            ret?;
            if self.peek() == b'E' {
                break;
            }
            if substable && !self.add_sub(ret) {
                return None;
            }
        }
        ret
    }

    fn maybe_module_name(&mut self, name: &mut Option<Id>) -> bool {
        while self.peek() == b'W' {
            self.advance(1);
            let mut code = K::ModuleName;
            if self.peek() == b'P' {
                code = K::ModulePartition;
                self.advance(1);
            }
            let sn = self.source_name();
            *name = self.make(code, *name, sn);
            if name.is_none() {
                return false;
            }
            if !self.add_sub(*name) {
                return false;
            }
        }
        true
    }

    fn unqualified_name(&mut self, scope: Option<Id>, module: Option<Id>) -> Option<Id> {
        let mut module = module;
        if !self.maybe_module_name(&mut module) {
            return None;
        }
        let peek = self.peek();
        let mut ret: Option<Id>;
        if is_digit(peek) {
            ret = self.source_name();
        } else if is_lower(peek) {
            let was_expr = self.is_expression;
            if peek == b'o' && self.peek_next() == b'n' {
                self.advance(2);
                self.is_expression = false;
            }
            ret = self.operator_name();
            self.is_expression = was_expr;
            if let Some(r) = ret
                && self.kind(r) == Some(K::Operator)
                && self.node(r).map(|n| op_code(n.aux)) == Some(b"li")
            {
                let sn = self.source_name();
                ret = self.make(K::Unary, Some(r), sn);
            }
        } else if peek == b'D' && self.peek_next() == b'C' {
            self.advance(2);
            let mut prev: Option<Id> = None;
            ret = None;
            loop {
                let sn = self.source_name();
                let next = self.make(K::StructuredBinding, sn, None);
                match prev {
                    Some(p) => self.set_right(p, next),
                    None => ret = next,
                }
                prev = next;
                if prev.is_none() || self.peek() == b'E' {
                    break;
                }
            }
            if prev.is_some() {
                self.advance(1);
            } else {
                ret = None;
            }
        } else if peek == b'C' || peek == b'D' {
            ret = self.ctor_dtor_name();
        } else if peek == b'L' {
            self.advance(1);
            ret = self.source_name();
            ret?;
            if !self.discriminator() {
                return None;
            }
        } else if peek == b'U' {
            match self.peek_next() {
                b'l' => ret = self.lambda(),
                b't' => ret = self.unnamed_type(),
                _ => return None,
            }
        } else {
            return None;
        }
        if module.is_some() {
            ret = self.make(K::ModuleEntity, ret, module);
        }
        if self.peek() == b'B' {
            ret = self.abi_tags(ret);
        }
        if scope.is_some() {
            ret = self.make(K::QualName, scope, ret);
        }
        ret
    }

    fn source_name(&mut self) -> Option<Id> {
        let len = self.number();
        if len <= 0 {
            return None;
        }
        let ret = self.identifier(len as usize);
        self.last_name = ret;
        ret
    }

    fn number(&mut self) -> i32 {
        let mut negative = false;
        let mut peek = self.peek();
        if peek == b'n' {
            negative = true;
            self.advance(1);
            peek = self.peek();
        }
        let mut ret: i32 = 0;
        loop {
            if !is_digit(peek) {
                return if negative { -ret } else { ret };
            }
            let d = i32::from(peek - b'0');
            if ret > (i32::MAX - d) / 10 {
                return -1;
            }
            ret = ret * 10 + d;
            self.advance(1);
            peek = self.peek();
        }
    }

    fn number_component(&mut self) -> Option<Id> {
        let id = self.make_num(K::Number, 0)?;
        let n = self.number();
        if let Some(node) = self.nodes.get_mut(id as usize) {
            node.num = n;
        }
        Some(id)
    }

    fn identifier(&mut self, len: usize) -> Option<Id> {
        let rest = self.rest();
        let name = rest.get(..len)?;
        self.advance(len);
        if len >= 10 && name.starts_with(b"_GLOBAL_") {
            let c = name.get(8).copied().unwrap_or(0);
            if matches!(c, b'.' | b'_' | b'$') && name.get(9) == Some(&b'N') {
                return self.make_name(b"(anonymous namespace)");
            }
        }
        self.make_name(name)
    }

    fn find_op(c1: u8, c2: u8) -> Option<u8> {
        OPS.iter()
            .position(|o| o.0 == &[c1, c2])
            .and_then(|i| u8::try_from(i).ok())
    }

    fn operator_name(&mut self) -> Option<Id> {
        let c1 = self.next_char();
        let c2 = self.next_char();
        if c1 == b'v' && is_digit(c2) {
            let sn = self.source_name();
            let mut n = Self::blank(K::ExtendedOperator);
            n.num = i32::from(c2 - b'0');
            n.l = sn;
            let id = self.empty(n)?;
            sn?;
            Some(id)
        } else if c1 == b'c' && c2 == b'v' {
            let was_conversion = self.is_conversion;
            self.is_conversion = !self.is_expression;
            let ty = self.cplus_type();
            let res = if self.is_conversion {
                self.make(K::Conversion, ty, None)
            } else {
                self.make(K::Cast, ty, None)
            };
            self.is_conversion = was_conversion;
            res
        } else {
            let idx = Self::find_op(c1, c2)?;
            let mut n = Self::blank(K::Operator);
            n.aux = idx;
            self.empty(n)
        }
    }

    fn make_character(&mut self, c: u8) -> Option<Id> {
        let mut n = Self::blank(K::Character);
        n.ch = c;
        self.empty(n)
    }

    fn java_resource(&mut self) -> Option<Id> {
        let len = self.number();
        if len <= 1 {
            return None;
        }
        if self.next_char() != b'_' {
            return None;
        }
        let mut len = (len - 1) as usize;
        let mut p: Option<Id> = None;
        while len > 0 {
            let str = self.rest();
            let c = str.first().copied().unwrap_or(0);
            if c == 0 {
                return None;
            }
            let next;
            if c == b'$' {
                let c = match str.get(1).copied().unwrap_or(0) {
                    b'S' => b'/',
                    b'_' => b'.',
                    b'$' => b'$',
                    _ => return None,
                };
                next = self.make_character(c);
                self.advance(2);
                len = len.saturating_sub(2);
                next?;
            } else {
                let mut i = 0;
                while i < len && str.get(i).is_some_and(|&b| b != 0 && b != b'$') {
                    i += 1;
                }
                next = self.make_name(str.get(..i).unwrap_or_default());
                self.advance(i);
                len -= i;
                next?;
            }
            p = match p {
                None => next,
                Some(_) => Some(self.make(K::CompoundName, p, next)?),
            };
        }
        self.make(K::JavaResource, p, None)
    }

    fn special_name(&mut self) -> Option<Id> {
        if self.check(b'T') {
            match self.next_char() {
                b'V' => {
                    let t = self.cplus_type();
                    self.make(K::Vtable, t, None)
                }
                b'T' => {
                    let t = self.cplus_type();
                    self.make(K::Vtt, t, None)
                }
                b'I' => {
                    let t = self.cplus_type();
                    self.make(K::Typeinfo, t, None)
                }
                b'S' => {
                    let t = self.cplus_type();
                    self.make(K::TypeinfoName, t, None)
                }
                b'h' => {
                    if !self.call_offset(b'h') {
                        return None;
                    }
                    let e = self.encoding(false);
                    self.make(K::Thunk, e, None)
                }
                b'v' => {
                    if !self.call_offset(b'v') {
                        return None;
                    }
                    let e = self.encoding(false);
                    self.make(K::VirtualThunk, e, None)
                }
                b'c' => {
                    if !self.call_offset(0) || !self.call_offset(0) {
                        return None;
                    }
                    let e = self.encoding(false);
                    self.make(K::CovariantThunk, e, None)
                }
                b'C' => {
                    let derived = self.cplus_type();
                    let offset = self.number();
                    if offset < 0 {
                        return None;
                    }
                    if !self.check(b'_') {
                        return None;
                    }
                    let base = self.cplus_type();
                    self.make(K::ConstructionVtable, base, derived)
                }
                b'F' => {
                    let t = self.cplus_type();
                    self.make(K::TypeinfoFn, t, None)
                }
                b'J' => {
                    let t = self.cplus_type();
                    self.make(K::JavaClass, t, None)
                }
                b'H' => {
                    let n = self.name(false);
                    self.make(K::TlsInit, n, None)
                }
                b'W' => {
                    let n = self.name(false);
                    self.make(K::TlsWrapper, n, None)
                }
                b'A' => {
                    let a = self.template_arg();
                    self.make(K::TparmObj, a, None)
                }
                _ => None,
            }
        } else if self.check(b'G') {
            match self.next_char() {
                b'V' => {
                    let n = self.name(false);
                    self.make(K::Guard, n, None)
                }
                b'R' => {
                    let n = self.name(false);
                    let num = self.number_component();
                    self.make(K::Reftemp, n, num)
                }
                b'A' => {
                    let e = self.encoding(false);
                    self.make(K::HiddenAlias, e, None)
                }
                b'I' => {
                    let mut module = None;
                    if !self.maybe_module_name(&mut module) || module.is_none() {
                        return None;
                    }
                    self.make(K::ModuleInit, module, None)
                }
                b'T' => {
                    let k = if self.next_char() == b'n' {
                        K::NontransactionClone
                    } else {
                        K::TransactionClone
                    };
                    let e = self.encoding(false);
                    self.make(k, e, None)
                }
                b'r' => self.java_resource(),
                _ => None,
            }
        } else {
            None
        }
    }

    fn call_offset(&mut self, c: u8) -> bool {
        let c = if c == 0 { self.next_char() } else { c };
        if c == b'h' {
            self.number();
        } else if c == b'v' {
            self.number();
            if !self.check(b'_') {
                return false;
            }
            self.number();
        } else {
            return false;
        }
        self.check(b'_')
    }

    fn ctor_dtor_name(&mut self) -> Option<Id> {
        match self.peek() {
            b'C' => {
                let mut inheriting = false;
                if self.peek_next() == b'I' {
                    inheriting = true;
                    self.advance(1);
                }
                let kind = match self.peek_next() {
                    c @ b'1'..=b'5' => i32::from(c - b'0'),
                    _ => return None,
                };
                self.advance(2);
                if inheriting {
                    let _ = self.cplus_type();
                }
                let name = self.last_name;
                let id = self.make_with_sub(K::Ctor, kind, name)?;
                name?;
                Some(id)
            }
            b'D' => {
                let kind = match self.peek_next() {
                    c @ (b'0' | b'1' | b'2' | b'4' | b'5') => i32::from(c - b'0'),
                    _ => return None,
                };
                self.advance(2);
                let name = self.last_name;
                let id = self.make_with_sub(K::Dtor, kind, name)?;
                name?;
                Some(id)
            }
            _ => None,
        }
    }

    fn next_is_type_qual(&self) -> bool {
        match self.peek() {
            b'r' | b'V' | b'K' => true,
            b'D' => matches!(self.peek_next(), b'x' | b'o' | b'O' | b'w'),
            _ => false,
        }
    }

    fn cplus_type(&mut self) -> Option<Id> {
        self.enter()?;
        let r = self.cplus_type_inner();
        self.leave();
        r
    }

    fn cplus_type_inner(&mut self) -> Option<Id> {
        if self.next_is_type_qual() {
            let (mut ret, hole) = self.cv_qualifiers(false)?;
            let inner = if self.peek() == b'F' {
                self.function_type()
            } else {
                self.cplus_type()
            };
            let inner = inner?;
            let mut fill = inner;
            if matches!(
                self.kind(inner),
                Some(K::RvalueReferenceThis | K::ReferenceThis)
            ) {
                // Move the ref-qualifier outside the cv-qualifiers.
                let fnty = self.left(inner);
                self.set_left(inner, ret);
                ret = Some(inner);
                match fnty {
                    Some(f) => fill = f,
                    None => {
                        // The hole is set to NULL, which only a later print can notice.
                        if let Some(h) = hole {
                            self.set_left(h, None);
                        }
                        if !self.add_sub(ret) {
                            return None;
                        }
                        return ret;
                    }
                }
            }
            match hole {
                Some(h) => self.set_left(h, Some(fill)),
                None => ret = Some(fill),
            }
            if !self.add_sub(ret) {
                return None;
            }
            return ret;
        }

        let mut can_subst = true;
        let peek = self.peek();
        let ret: Option<Id> = match peek {
            b'a'..=b'j' | b'l'..=b'o' | b's' | b't' | b'v'..=b'z' => {
                let r = self.make_builtin(peek - b'a');
                can_subst = false;
                self.advance(1);
                r
            }
            b'u' => {
                self.advance(1);
                let sn = self.source_name();
                self.make(K::VendorType, sn, None)
            }
            b'F' => self.function_type(),
            b'A' => self.array_type(),
            b'M' => self.pointer_to_member_type(),
            b'T' => {
                let mut ret = self.template_param();
                if self.peek() == b'I' {
                    if !self.is_conversion {
                        if !self.add_sub(ret) {
                            return None;
                        }
                        let args = self.template_args();
                        ret = self.make(K::Template, ret, args);
                    } else {
                        let cp = (self.pos, self.next_comp, self.next_sub);
                        let args = self.template_args();
                        if self.peek() == b'I' {
                            if !self.add_sub(ret) {
                                return None;
                            }
                            ret = self.make(K::Template, ret, args);
                        } else {
                            self.pos = cp.0;
                            self.next_comp = cp.1;
                            self.next_sub = cp.2;
                        }
                    }
                }
                ret
            }
            b'O' => {
                self.advance(1);
                let t = self.cplus_type();
                self.make(K::RvalueReference, t, None)
            }
            b'P' => {
                self.advance(1);
                let t = self.cplus_type();
                self.make(K::Pointer, t, None)
            }
            b'R' => {
                self.advance(1);
                let t = self.cplus_type();
                self.make(K::Reference, t, None)
            }
            b'C' => {
                self.advance(1);
                let t = self.cplus_type();
                self.make(K::Complex, t, None)
            }
            b'G' => {
                self.advance(1);
                let t = self.cplus_type();
                self.make(K::Imaginary, t, None)
            }
            b'U' => {
                self.advance(1);
                let mut r = self.source_name();
                if self.peek() == b'I' {
                    let args = self.template_args();
                    r = self.make(K::Template, r, args);
                }
                let t = self.cplus_type();
                self.make(K::VendorTypeQual, t, r)
            }
            b'D' => {
                can_subst = false;
                self.advance(1);
                let peek = self.next_char();
                match peek {
                    b'T' | b't' => {
                        let e = self.expression();
                        let mut r = self.make(K::Decltype, e, None);
                        if r.is_some() && self.next_char() != b'E' {
                            r = None;
                        }
                        can_subst = true;
                        r
                    }
                    b'p' => {
                        let t = self.cplus_type();
                        can_subst = true;
                        self.make(K::PackExpansion, t, None)
                    }
                    b'a' => self.make_name(b"auto"),
                    b'c' => self.make_name(b"decltype(auto)"),
                    b'f' => self.make_builtin(26),
                    b'd' => self.make_builtin(27),
                    b'e' => self.make_builtin(28),
                    b'h' => self.make_builtin(29),
                    b'u' => self.make_builtin(30),
                    b's' => self.make_builtin(31),
                    b'i' => self.make_builtin(32),
                    b'F' => {
                        let arg = self.number();
                        if self.peek() == b'b' {
                            if arg != 16 {
                                return None;
                            }
                            self.advance(1);
                            self.make_builtin(35)
                        } else {
                            let suffix = if self.peek() == b'x' { b'x' } else { 0 };
                            if suffix == 0 && self.peek() != b'_' {
                                return None;
                            }
                            let mut n = Self::blank(K::ExtendedBuiltinType);
                            n.aux = 34;
                            n.num = arg;
                            n.ch = suffix;
                            let r = self.empty(n);
                            self.advance(1);
                            r
                        }
                    }
                    b'v' => {
                        can_subst = true;
                        self.vector_type()
                    }
                    b'n' => self.make_builtin(NULLPTR_TYPE),
                    _ => return None,
                }
            }
            _ => return self.name(true),
        };
        if can_subst && !self.add_sub(ret) {
            return None;
        }
        ret
    }

    /// Parses cv-qualifiers into a chain; returns the chain's head (or `None` when empty) and
    /// the last qualifier, whose left operand is the hole to fill.  The outer `Option` is
    /// libiberty's failure.
    #[allow(clippy::type_complexity)]
    fn cv_qualifiers(&mut self, member_fn: bool) -> Option<(Option<Id>, Option<Id>)> {
        let mut head: Option<Id> = None;
        let mut last: Option<Id> = None;
        let mut chain: Vec<Id> = Vec::new();
        let mut peek = self.peek();
        while self.next_is_type_qual() {
            let mut right = None;
            self.advance(1);
            let t = match peek {
                b'r' => {
                    if member_fn {
                        K::RestrictThis
                    } else {
                        K::Restrict
                    }
                }
                b'V' => {
                    if member_fn {
                        K::VolatileThis
                    } else {
                        K::Volatile
                    }
                }
                b'K' => {
                    if member_fn {
                        K::ConstThis
                    } else {
                        K::Const
                    }
                }
                _ => {
                    let p = self.next_char();
                    match p {
                        b'x' => K::TransactionSafe,
                        b'o' | b'O' => {
                            if p == b'O' {
                                right = Some(self.expression()?);
                                if !self.check(b'E') {
                                    return None;
                                }
                            }
                            K::Noexcept
                        }
                        b'w' => {
                            right = Some(self.parmlist()?);
                            if !self.check(b'E') {
                                return None;
                            }
                            K::ThrowSpec
                        }
                        _ => return None,
                    }
                }
            };
            let q = self.make(t, None, right)?;
            match last {
                Some(l) => self.set_left(l, Some(q)),
                None => head = Some(q),
            }
            last = Some(q);
            chain.push(q);
            peek = self.peek();
        }
        if !member_fn && peek == b'F' {
            for &q in &chain {
                let nk = match self.kind(q) {
                    Some(K::Restrict) => K::RestrictThis,
                    Some(K::Volatile) => K::VolatileThis,
                    Some(K::Const) => K::ConstThis,
                    _ => continue,
                };
                self.set_kind(q, nk);
            }
        }
        Some((head, last))
    }

    fn ref_qualifier(&mut self, sub: Option<Id>) -> Option<Id> {
        let peek = self.peek();
        if peek == b'R' || peek == b'O' {
            let t = if peek == b'R' {
                K::ReferenceThis
            } else {
                K::RvalueReferenceThis
            };
            self.advance(1);
            return self.make(t, sub, None);
        }
        sub
    }

    fn function_type(&mut self) -> Option<Id> {
        if self.recursion_level > RECURSION_LIMIT {
            return None;
        }
        self.recursion_level += 1;
        let mut ret = None;
        if self.check(b'F') {
            if self.peek() == b'Y' {
                self.advance(1);
            }
            ret = self.bare_function_type(true);
            ret = self.ref_qualifier(ret);
            if !self.check(b'E') {
                ret = None;
            }
        }
        self.recursion_level -= 1;
        ret
    }

    fn parmlist(&mut self) -> Option<Id> {
        let mut head: Option<Id> = None;
        let mut tail: Option<Id> = None;
        loop {
            let peek = self.peek();
            if peek == 0 || peek == b'E' || peek == b'.' {
                break;
            }
            if (peek == b'R' || peek == b'O') && self.peek_next() == b'E' {
                break;
            }
            let ty = self.cplus_type()?;
            let al = self.make(K::Arglist, Some(ty), None)?;
            match tail {
                Some(t) => self.set_right(t, Some(al)),
                None => head = Some(al),
            }
            tail = Some(al);
        }
        let tl = head?;
        if self.right(tl).is_none()
            && let Some(l) = self.left(tl)
            && let Some(n) = self.node(l)
            && n.kind == K::BuiltinType
            && BUILTINS.get(usize::from(n.aux)).map(|b| b.1) == Some(PrintKind::Void)
        {
            self.set_left(tl, None);
        }
        Some(tl)
    }

    fn bare_function_type(&mut self, has_return_type: bool) -> Option<Id> {
        let mut hrt = has_return_type;
        if self.peek() == b'J' {
            self.advance(1);
            hrt = true;
        }
        let rt = if hrt { Some(self.cplus_type()?) } else { None };
        let tl = self.parmlist()?;
        self.make(K::FunctionType, rt, Some(tl))
    }

    fn array_type(&mut self) -> Option<Id> {
        if !self.check(b'A') {
            return None;
        }
        let peek = self.peek();
        let dim = if peek == b'_' {
            None
        } else if is_digit(peek) {
            let start = self.pos;
            while is_digit(self.peek()) {
                self.advance(1);
            }
            let s = self.s.get(start..self.pos).unwrap_or_default();
            Some(self.make_name(s)?)
        } else {
            Some(self.expression()?)
        };
        if !self.check(b'_') {
            return None;
        }
        let t = self.cplus_type();
        self.make(K::ArrayType, dim, t)
    }

    fn vector_type(&mut self) -> Option<Id> {
        let dim = if self.peek() == b'_' {
            self.advance(1);
            self.expression()
        } else {
            self.number_component()
        };
        dim?;
        if !self.check(b'_') {
            return None;
        }
        let t = self.cplus_type();
        self.make(K::VectorType, dim, t)
    }

    fn pointer_to_member_type(&mut self) -> Option<Id> {
        if !self.check(b'M') {
            return None;
        }
        let cl = self.cplus_type()?;
        let mem = self.cplus_type()?;
        self.make(K::PtrmemType, Some(cl), Some(mem))
    }

    fn compact_number(&mut self) -> i32 {
        let num = if self.peek() == b'_' {
            0
        } else if self.peek() == b'n' {
            return -1;
        } else {
            self.number().wrapping_add(1)
        };
        if num < 0 || !self.check(b'_') {
            return -1;
        }
        num
    }

    fn template_param(&mut self) -> Option<Id> {
        if !self.check(b'T') {
            return None;
        }
        let param = self.compact_number();
        if param < 0 {
            return None;
        }
        self.make_num(K::TemplateParam, param)
    }

    fn template_args(&mut self) -> Option<Id> {
        if self.peek() != b'I' && self.peek() != b'J' {
            return None;
        }
        self.advance(1);
        self.template_args_1()
    }

    fn template_args_1(&mut self) -> Option<Id> {
        self.enter()?;
        let r = self.template_args_1_inner();
        self.leave();
        r
    }

    fn template_args_1_inner(&mut self) -> Option<Id> {
        let hold = self.last_name;
        if self.peek() == b'E' {
            self.advance(1);
            return self.make(K::TemplateArglist, None, None);
        }
        let mut head: Option<Id> = None;
        let mut tail: Option<Id> = None;
        loop {
            let a = self.template_arg()?;
            let al = self.make(K::TemplateArglist, Some(a), None)?;
            match tail {
                Some(t) => self.set_right(t, Some(al)),
                None => head = Some(al),
            }
            tail = Some(al);
            if self.peek() == b'E' {
                self.advance(1);
                break;
            }
        }
        self.last_name = hold;
        head
    }

    fn template_arg(&mut self) -> Option<Id> {
        match self.peek() {
            b'X' => {
                self.advance(1);
                let ret = self.expression();
                if !self.check(b'E') {
                    return None;
                }
                ret
            }
            b'L' => self.expr_primary(),
            b'I' | b'J' => self.template_args(),
            _ => self.cplus_type(),
        }
    }

    fn exprlist(&mut self, terminator: u8) -> Option<Id> {
        if self.peek() == terminator {
            self.advance(1);
            return self.make(K::Arglist, None, None);
        }
        let mut head: Option<Id> = None;
        let mut tail: Option<Id> = None;
        loop {
            let arg = self.expression()?;
            let al = self.make(K::Arglist, Some(arg), None)?;
            match tail {
                Some(t) => self.set_right(t, Some(al)),
                None => head = Some(al),
            }
            tail = Some(al);
            if self.peek() == terminator {
                self.advance(1);
                break;
            }
            // libiberty loops until the terminator; at the end of the string each
            // expression fails, which ends it.
        }
        head
    }

    fn op_is_new_cast(&self, op: Id) -> bool {
        self.node(op).is_some_and(|n| {
            let c = op_code(n.aux);
            c[1] == b'c' && matches!(c[0], b's' | b'd' | b'c' | b'r')
        })
    }

    fn unresolved_name(&mut self) -> Option<Id> {
        self.advance(2);
        let peek = self.peek();
        let ty = if self.unresolved_name_state != 0
            && (is_digit(peek) || is_lower(peek) || matches!(peek, b'C' | b'U' | b'L'))
        {
            self.unresolved_name_state = -1;
            let t = self.prefix(false);
            if self.peek() == b'E' {
                self.advance(1);
            }
            t
        } else {
            self.cplus_type()
        };
        let mut name = self.unqualified_name(ty, None);
        if self.peek() == b'I' {
            let args = self.template_args();
            name = self.make(K::Template, name, args);
        }
        name
    }

    fn expression(&mut self) -> Option<Id> {
        let was = self.is_expression;
        self.is_expression = true;
        let r = self.expression_1();
        self.is_expression = was;
        r
    }

    fn expression_1(&mut self) -> Option<Id> {
        self.enter()?;
        let r = self.expression_1_inner();
        self.leave();
        r
    }

    fn expression_1_inner(&mut self) -> Option<Id> {
        let peek = self.peek();
        let next = self.peek_next();
        if peek == b'L' {
            return self.expr_primary();
        }
        if peek == b'T' {
            return self.template_param();
        }
        if peek == b's' && next == b'r' {
            return self.unresolved_name();
        }
        if peek == b's' && next == b'p' {
            self.advance(2);
            let e = self.expression_1();
            return self.make(K::PackExpansion, e, None);
        }
        if peek == b'f' && next == b'p' {
            self.advance(2);
            let index = if self.peek() == b'T' {
                self.advance(1);
                0
            } else {
                let i = self.compact_number();
                if i == i32::MAX || i == -1 {
                    return None;
                }
                i + 1
            };
            return self.make_num(K::FunctionParam, index);
        }
        if is_digit(peek) || (peek == b'o' && next == b'n') {
            if peek == b'o' {
                self.advance(2);
            }
            let name = self.unqualified_name(None, None)?;
            if self.peek() == b'I' {
                let args = self.template_args();
                return self.make(K::Template, Some(name), args);
            }
            return Some(name);
        }
        if (peek == b'i' || peek == b't') && next == b'l' {
            self.advance(2);
            let ty = if peek == b't' {
                self.cplus_type()
            } else {
                None
            };
            if self.peek() == 0 || self.peek_next() == 0 {
                return None;
            }
            let list = self.exprlist(b'E');
            return self.make(K::InitializerList, ty, list);
        }
        if peek == b'u' {
            self.advance(1);
            let name = self.source_name();
            let args = self.template_args_1();
            return self.make(K::VendorExpr, name, args);
        }

        let op = self.operator_name()?;
        let opn = *self.node(op)?;
        let mut code: Option<[u8; 2]> = None;
        if opn.kind == K::Operator {
            let c = *op_code(opn.aux);
            code = Some(c);
            if &c == b"st" {
                let t = self.cplus_type();
                return self.make(K::Unary, Some(op), t);
            }
        }
        let args = match opn.kind {
            K::Operator => op_args(opn.aux),
            K::ExtendedOperator => opn.num,
            K::Cast => 1,
            _ => return None,
        };
        match args {
            0 => self.make(K::Nullary, Some(op), None),
            1 => {
                let mut suffix = false;
                if let Some(c) = code
                    && (c[0] == b'p' || c[0] == b'm')
                    && c[1] == c[0]
                {
                    suffix = !self.check(b'_');
                }
                let mut operand = if opn.kind == K::Cast && self.check(b'_') {
                    self.exprlist(b'E')
                } else if code == Some(*b"sP") {
                    self.template_args_1()
                } else {
                    self.expression_1()
                };
                if suffix {
                    operand = self.make(K::BinaryArgs, operand, operand);
                }
                self.make(K::Unary, Some(op), operand)
            }
            2 => {
                let c = code?;
                let left = if self.op_is_new_cast(op) {
                    self.cplus_type()
                } else if c[0] == b'f' {
                    self.operator_name()
                } else if &c == b"di" {
                    self.unqualified_name(None, None)
                } else {
                    self.expression_1()
                };
                let right = if &c == b"cl" {
                    self.exprlist(b'E')
                } else if &c == b"dt" || &c == b"pt" {
                    let p = self.peek();
                    let n = self.peek_next();
                    if (p == b'g' && n == b's') || (p == b's' && n == b'r') {
                        self.expression_1()
                    } else {
                        let mut r = self.unqualified_name(None, None);
                        if self.peek() == b'I' {
                            let args = self.template_args();
                            r = self.make(K::Template, r, args);
                        }
                        r
                    }
                } else {
                    self.expression_1()
                };
                let ba = self.make(K::BinaryArgs, left, right);
                self.make(K::Binary, Some(op), ba)
            }
            3 => {
                let c = code?;
                let (first, second, third);
                if &c == b"qu" || &c == b"dX" {
                    first = self.expression_1();
                    second = self.expression_1();
                    third = self.expression_1();
                    third?;
                } else if c[0] == b'f' {
                    first = self.operator_name();
                    second = self.expression_1();
                    third = self.expression_1();
                    third?;
                } else if c[0] == b'n' {
                    if c[1] != b'w' && c[1] != b'a' {
                        return None;
                    }
                    first = self.exprlist(b'_');
                    second = self.cplus_type();
                    if self.peek() == b'E' {
                        self.advance(1);
                        third = None;
                    } else if self.peek() == b'p' && self.peek_next() == b'i' {
                        self.advance(2);
                        third = self.exprlist(b'E');
                    } else if self.peek() == b'i' && self.peek_next() == b'l' {
                        third = self.expression_1();
                    } else {
                        return None;
                    }
                } else {
                    return None;
                }
                let a2 = self.make(K::TrinaryArg2, second, third);
                let a1 = self.make(K::TrinaryArg1, first, a2);
                self.make(K::Trinary, Some(op), a1)
            }
            _ => None,
        }
    }

    fn expr_primary(&mut self) -> Option<Id> {
        if !self.check(b'L') {
            return None;
        }
        let ret;
        if self.peek() == b'_' || self.peek() == b'Z' {
            ret = self.mangled_name(false);
        } else {
            let ty = self.cplus_type()?;
            let tn = *self.node(ty)?;
            if tn.kind == K::BuiltinType && tn.aux == NULLPTR_TYPE && self.peek() == b'E' {
                self.advance(1);
                return Some(ty);
            }
            let mut t = K::Literal;
            if self.peek() == b'n' {
                t = K::LiteralNeg;
                self.advance(1);
            }
            let start = self.pos;
            while self.peek() != b'E' {
                if self.peek() == 0 {
                    return None;
                }
                self.advance(1);
            }
            let s = self.s.get(start..self.pos).unwrap_or_default();
            let name = self.make_name(s);
            ret = self.make(t, Some(ty), name);
        }
        if !self.check(b'E') {
            return None;
        }
        ret
    }

    fn local_name(&mut self) -> Option<Id> {
        if !self.check(b'Z') {
            return None;
        }
        let function = self.encoding(false)?;
        if !self.check(b'E') {
            return None;
        }
        let name;
        if self.peek() == b's' {
            self.advance(1);
            if !self.discriminator() {
                return None;
            }
            name = self.make_name(b"string literal");
        } else {
            let mut num = -1;
            if self.peek() == b'd' {
                self.advance(1);
                num = self.compact_number();
                if num < 0 {
                    return None;
                }
            }
            let mut n = self.name(false);
            if let Some(id) = n
                && !matches!(self.kind(id), Some(K::Lambda | K::UnnamedType))
                && !self.discriminator()
            {
                return None;
            }
            if num >= 0 {
                n = self.make_with_sub(K::DefaultArg, num, n);
            }
            name = n;
        }
        if self.kind(function) == Some(K::TypedName)
            && let Some(r) = self.right(function)
            && self.kind(r) == Some(K::FunctionType)
        {
            self.set_left(r, None);
        }
        self.make(K::LocalName, Some(function), name)
    }

    fn discriminator(&mut self) -> bool {
        if self.peek() != b'_' {
            return true;
        }
        self.advance(1);
        let mut num_underscores = 1;
        if self.peek() == b'_' {
            num_underscores += 1;
            self.advance(1);
        }
        let discrim = self.number();
        if discrim < 0 {
            return false;
        }
        if num_underscores > 1 && discrim >= 10 {
            if self.peek() == b'_' {
                self.advance(1);
            } else {
                return false;
            }
        }
        true
    }

    fn template_parm(&mut self, bad: &mut bool) -> Option<Id> {
        if self.peek() != b'T' {
            return None;
        }
        self.enter()?;
        let r = self.template_parm_inner(bad);
        self.leave();
        r
    }

    fn template_parm_inner(&mut self, bad: &mut bool) -> Option<Id> {
        let (kind, op) = match self.peek_next() {
            b'p' => {
                self.advance(2);
                let op = self.template_parm(bad);
                if op.is_none() {
                    *bad = true;
                    return None;
                }
                (K::TemplatePackParm, op)
            }
            b'y' => {
                self.advance(2);
                (K::TemplateTypeParm, None)
            }
            b'n' => {
                self.advance(2);
                let op = self.cplus_type();
                if op.is_none() {
                    *bad = true;
                    return None;
                }
                (K::TemplateNonTypeParm, op)
            }
            b't' => {
                self.advance(2);
                let op = self.template_head(bad);
                if op.is_none() || !self.check(b'E') {
                    *bad = true;
                    return None;
                }
                (K::TemplateTemplateParm, op)
            }
            _ => return None,
        };
        self.make(kind, op, None)
    }

    fn template_head(&mut self, bad: &mut bool) -> Option<Id> {
        let mut head: Option<Id> = None;
        let mut tail: Option<Id> = None;
        while let Some(op) = self.template_parm(bad) {
            match tail {
                Some(t) => self.set_right(t, Some(op)),
                None => head = Some(op),
            }
            tail = Some(op);
        }
        if head.is_some() {
            return self.make(K::TemplateHead, head, None);
        }
        None
    }

    fn lambda(&mut self) -> Option<Id> {
        if !self.check(b'U') || !self.check(b'l') {
            return None;
        }
        let mut bad = false;
        let head = self.template_head(&mut bad);
        if bad {
            return None;
        }
        let mut tl = self.parmlist()?;
        if let Some(h) = head {
            self.set_right(h, Some(tl));
            tl = h;
        }
        if !self.check(b'E') {
            return None;
        }
        let num = self.compact_number();
        if num < 0 {
            return None;
        }
        self.make_with_sub(K::Lambda, num, Some(tl))
    }

    fn unnamed_type(&mut self) -> Option<Id> {
        if !self.check(b'U') || !self.check(b't') {
            return None;
        }
        let num = self.compact_number();
        if num < 0 {
            return None;
        }
        let ret = self.make_num(K::UnnamedType, num);
        if !self.add_sub(ret) {
            return None;
        }
        ret
    }

    fn clone_suffix(&mut self, encoding: Option<Id>) -> Option<Id> {
        let s = self.rest();
        let g = |i: usize| s.get(i).copied().unwrap_or(0);
        let mut pend = 0;
        let ok = |c: u8| is_lower(c) || is_digit(c) || c == b'_';
        if g(0) == b'.' && ok(g(1)) {
            pend = 2;
            while ok(g(pend)) {
                pend += 1;
            }
        }
        while g(pend) == b'.' && is_digit(g(pend + 1)) {
            pend += 2;
            while is_digit(g(pend)) {
                pend += 1;
            }
        }
        self.advance(pend);
        let n = self.make_name(s.get(..pend).unwrap_or_default());
        self.make(K::Clone, encoding, n)
    }

    fn substitution(&mut self, prefix: bool) -> Option<Id> {
        if !self.check(b'S') {
            return None;
        }
        let mut c = self.next_char();
        if c == b'_' || is_digit(c) || is_upper(c) {
            let mut id: u32 = 0;
            if c != b'_' {
                loop {
                    let new_id = if is_digit(c) {
                        id.wrapping_mul(36).wrapping_add(u32::from(c - b'0'))
                    } else if is_upper(c) {
                        id.wrapping_mul(36).wrapping_add(u32::from(c - b'A') + 10)
                    } else {
                        return None;
                    };
                    if new_id < id {
                        return None;
                    }
                    id = new_id;
                    c = self.next_char();
                    if c == b'_' {
                        break;
                    }
                }
                id = id.wrapping_add(1);
            }
            if id as usize >= self.next_sub {
                return None;
            }
            return self.subs.get(id as usize).copied();
        }
        let mut verbose = false;
        if prefix {
            let peek = self.peek();
            if peek == b'C' || peek == b'D' {
                verbose = true;
            }
        }
        let &(_, simple, full, last) = STD_SUBS.iter().find(|s| s.0 == c)?;
        if let Some(ln) = last {
            self.last_name = self.make_sub(ln);
        }
        let mut dc = self.make_sub(if verbose { full } else { simple });
        if self.peek() == b'B' {
            dc = self.abi_tags(dc);
            if !self.add_sub(dc) {
                return None;
            }
        }
        dc
    }
}

// ---------------------------------------------------------------------------------------------
// Printing.

type TplId = u32;
type ModId = u32;

#[derive(Clone, Copy)]
struct Tpl {
    decl: Option<Id>,
    next: Option<TplId>,
}

#[derive(Clone, Copy)]
struct Mod {
    next: Option<ModId>,
    m: Id,
    printed: bool,
    templates: Option<TplId>,
}

struct Printer<'p, 'a> {
    n: &'p [Node<'a>],
    out: Vec<u8>,
    last: u8,
    failed: bool,
    templates: Option<TplId>,
    tpls: Vec<Tpl>,
    modifiers: Option<ModId>,
    mods: Vec<Mod>,
    recursion: i32,
    lambda_tpl_parms: i32,
    pack_index: i32,
    stack: Vec<Id>,
    saved: Vec<(Id, Option<TplId>)>,
    num_saved_scopes: i32,
    next_copy_template: i32,
    num_copy_templates: i32,
    current_template: Option<Id>,
    printing: Vec<u8>,
    counting: Vec<u8>,
    /// Whether the limits on saved scopes have been counted (done on first need: they
    /// depend only on the tree).
    counted: bool,
    root: Id,
    work: u32,
    /// Bytes in libiberty's print buffer since its last flush, and the number of flushes.
    buf_len: usize,
    flushes: u64,
}

impl<'p, 'a> Printer<'p, 'a> {
    fn print(nodes: &'p [Node<'a>], root: Id) -> Option<String> {
        let mut p = Printer {
            n: nodes,
            out: Vec::with_capacity(4 * nodes.len() + 16),
            last: 0,
            failed: false,
            templates: None,
            tpls: Vec::new(),
            modifiers: None,
            mods: Vec::new(),
            recursion: 0,
            lambda_tpl_parms: 0,
            pack_index: 0,
            stack: Vec::new(),
            saved: Vec::new(),
            num_saved_scopes: 0,
            next_copy_template: 0,
            num_copy_templates: 0,
            current_template: None,
            printing: vec![0; nodes.len()],
            counting: Vec::new(),
            counted: false,
            root,
            work: 0,
            buf_len: 0,
            flushes: 0,
        };
        p.root = root;
        p.comp(Some(root));
        if p.failed {
            return None;
        }
        Some(match String::from_utf8(p.out) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    fn node(&self, id: Id) -> Option<&'p Node<'a>> {
        self.n.get(id as usize)
    }
    fn kind(&self, id: Option<Id>) -> Option<K> {
        id.and_then(|i| self.node(i)).map(|n| n.kind)
    }
    fn left(&self, id: Option<Id>) -> Option<Id> {
        id.and_then(|i| self.node(i)).and_then(|n| n.l)
    }
    fn right(&self, id: Option<Id>) -> Option<Id> {
        id.and_then(|i| self.node(i)).and_then(|n| n.r)
    }

    fn count_templates_scopes(&mut self, dc: Option<Id>) {
        let Some(id) = dc else { return };
        let Some(node) = self.node(id) else { return };
        let Some(c) = self.counting.get_mut(id as usize) else {
            return;
        };
        if *c > 1 || self.recursion > MAX_PRINT_RECURSION {
            return;
        }
        *c += 1;
        use K::*;
        match node.kind {
            Name | TemplateParam | FunctionParam | SubStd | BuiltinType | ExtendedBuiltinType
            | Operator | Character | Number | UnnamedType | StructuredBinding | ModuleName
            | ModulePartition | ModuleInit | TemplateHead | TemplateTypeParm
            | TemplateNonTypeParm | TemplateTemplateParm | TemplatePackParm => {}
            Ctor | Dtor | ExtendedOperator | GlobalConstructors | GlobalDestructors
            | ModuleEntity | Lambda | DefaultArg => self.count_templates_scopes(node.l),
            _ => {
                if node.kind == Template {
                    self.num_copy_templates += 1;
                }
                if matches!(node.kind, Reference | RvalueReference)
                    && self.kind(node.l) == Some(TemplateParam)
                {
                    self.num_saved_scopes += 1;
                }
                if self.recursion > RECURSION_LIMIT as i32 {
                    return;
                }
                self.recursion += 1;
                self.count_templates_scopes(node.l);
                self.count_templates_scopes(node.r);
                self.recursion -= 1;
            }
        }
    }

    fn error(&mut self) {
        self.failed = true;
    }

    fn ch(&mut self, c: u8) {
        if self.out.len() >= MAX_OUTPUT {
            self.failed = true;
            return;
        }
        self.out.push(c);
        self.last = c;
        self.account(1);
    }

    fn s(&mut self, s: &[u8]) {
        if self.out.len() + s.len() > MAX_OUTPUT {
            self.failed = true;
            return;
        }
        if let Some(&c) = s.last() {
            self.out.extend_from_slice(s);
            self.last = c;
            self.account(s.len());
        }
    }

    /// Follows libiberty's 256-byte print buffer: it is flushed when a character comes with
    /// 255 already in it.  Whether a flush happened decides, in argument lists, if a ", "
    /// before an argument that prints nothing is taken back.
    fn account(&mut self, n: usize) {
        let mut n = n;
        while n > 0 {
            if self.buf_len == PRINT_BUFFER - 1 {
                self.flush();
            }
            let take = n.min(PRINT_BUFFER - 1 - self.buf_len);
            self.buf_len += take;
            n -= take;
        }
    }

    fn flush(&mut self) {
        self.buf_len = 0;
        self.flushes += 1;
    }

    fn num(&mut self, n: i64) {
        self.s(n.to_string().as_bytes());
    }

    fn push_mod(&mut self, m: Id) -> ModId {
        let id = self.mods.len() as ModId;
        self.mods.push(Mod {
            next: self.modifiers,
            m,
            printed: false,
            templates: self.templates,
        });
        self.modifiers = Some(id);
        id
    }

    fn mod_at(&self, id: ModId) -> Option<Mod> {
        self.mods.get(id as usize).copied()
    }

    fn mod_printed(&self, id: ModId) -> bool {
        self.mods.get(id as usize).is_some_and(|m| m.printed)
    }

    fn set_printed(&mut self, id: ModId, v: bool) {
        if let Some(m) = self.mods.get_mut(id as usize) {
            m.printed = v;
        }
    }

    fn push_tpl(&mut self, decl: Option<Id>) {
        let id = self.tpls.len() as TplId;
        self.tpls.push(Tpl {
            decl,
            next: self.templates,
        });
        self.templates = Some(id);
    }

    fn tpl_next(&self, t: Option<TplId>) -> Option<TplId> {
        t.and_then(|t| self.tpls.get(t as usize))
            .and_then(|t| t.next)
    }

    fn comp(&mut self, dc: Option<Id>) {
        let Some(id) = dc else {
            self.error();
            return;
        };
        if self.failed {
            return;
        }
        self.work += 1;
        if self.work > MAX_WORK {
            self.error();
            return;
        }
        let Some(pr) = self.printing.get(id as usize).copied() else {
            self.error();
            return;
        };
        if pr > 1 || self.recursion > MAX_PRINT_RECURSION {
            self.error();
            return;
        }
        if let Some(p) = self.printing.get_mut(id as usize) {
            *p += 1;
        }
        self.recursion += 1;
        self.stack.push(id);
        let mods_base = self.mods.len();
        self.comp_inner(id);
        self.mods.truncate(mods_base.max(self.live_mods()));
        self.stack.pop();
        self.recursion -= 1;
        if let Some(p) = self.printing.get_mut(id as usize) {
            *p -= 1;
        }
    }

    /// The modifier entries still reachable from the current list must survive a truncation.
    fn live_mods(&self) -> usize {
        self.modifiers.map_or(0, |m| m as usize + 1)
    }

    fn subexpr(&mut self, dc: Option<Id>) {
        let simple = matches!(
            self.kind(dc),
            Some(K::Name | K::QualName | K::InitializerList | K::FunctionParam)
        );
        if !simple {
            self.ch(b'(');
        }
        self.comp(dc);
        if !simple {
            self.ch(b')');
        }
    }

    /// libiberty's `d_count_templates_scopes`, run before printing; its counts are only
    /// needed here.
    fn count_limits(&mut self) {
        if self.counted {
            return;
        }
        self.counted = true;
        self.counting = vec![0; self.n.len()];
        let saved_recursion = self.recursion;
        self.recursion = 0;
        self.count_templates_scopes(Some(self.root));
        self.recursion = saved_recursion;
        self.num_copy_templates = self
            .num_copy_templates
            .saturating_mul(self.num_saved_scopes);
    }

    fn save_scope(&mut self, container: Id) {
        self.count_limits();
        if self.saved.len() as i32 >= self.num_saved_scopes {
            self.error();
            return;
        }
        let mut t = self.templates;
        while t.is_some() {
            if self.next_copy_template >= self.num_copy_templates {
                self.error();
                return;
            }
            self.next_copy_template += 1;
            t = self.tpl_next(t);
        }
        self.saved.push((container, self.templates));
    }

    fn get_saved_scope(&self, container: Id) -> Option<Option<TplId>> {
        self.saved.iter().find(|s| s.0 == container).map(|s| s.1)
    }

    fn index_template_argument(&self, args: Option<Id>, i: i32) -> Option<Id> {
        if i < 0 {
            return args;
        }
        let mut i = i;
        let mut a = args;
        while let Some(id) = a {
            if self.kind(Some(id)) != Some(K::TemplateArglist) {
                return None;
            }
            if i <= 0 {
                break;
            }
            i -= 1;
            a = self.right(Some(id));
        }
        if i != 0 || a.is_none() {
            return None;
        }
        self.left(a)
    }

    fn lookup_template_argument(&mut self, dc: Id) -> Option<Id> {
        let Some(t) = self.templates.and_then(|t| self.tpls.get(t as usize)) else {
            self.error();
            return None;
        };
        let Some(decl) = t.decl else {
            self.error();
            return None;
        };
        let num = self.node(dc).map_or(0, |n| n.num);
        self.index_template_argument(self.right(Some(decl)), num)
    }

    fn find_pack(&mut self, dc: Option<Id>, depth: u32) -> Option<Id> {
        let id = dc?;
        if depth > RECURSION_LIMIT as u32 {
            return None;
        }
        let node = *self.node(id)?;
        use K::*;
        match node.kind {
            TemplateParam => {
                let a = self.lookup_template_argument(id);
                if self.kind(a) == Some(TemplateArglist) {
                    return a;
                }
                None
            }
            PackExpansion => None,
            Lambda | Name | TaggedName | Operator | BuiltinType | ExtendedBuiltinType | SubStd
            | Character | FunctionParam | UnnamedType | DefaultArg | Number => None,
            ExtendedOperator | Ctor | Dtor => self.find_pack(node.l, depth + 1),
            _ => {
                if let Some(a) = self.find_pack(node.l, depth + 1) {
                    return Some(a);
                }
                self.find_pack(node.r, depth + 1)
            }
        }
    }

    fn pack_length(&self, dc: Option<Id>) -> i32 {
        let mut count = 0;
        let mut dc = dc;
        while self.kind(dc) == Some(K::TemplateArglist) && self.left(dc).is_some() {
            count += 1;
            dc = self.right(dc);
        }
        count
    }

    fn args_length(&mut self, dc: Option<Id>) -> i32 {
        let mut count = 0;
        let mut dc = dc;
        while self.kind(dc) == Some(K::TemplateArglist) {
            let Some(elt) = self.left(dc) else { break };
            if self.kind(Some(elt)) == Some(K::PackExpansion) {
                let a = self.find_pack(self.left(Some(elt)), 0);
                count += self.pack_length(a);
            } else {
                count += 1;
            }
            dc = self.right(dc);
        }
        count
    }

    fn op_code_of(&self, id: Option<Id>) -> Option<[u8; 2]> {
        let n = self.node(id?)?;
        if n.kind == K::Operator {
            Some(*op_code(n.aux))
        } else {
            None
        }
    }

    fn expr_op(&mut self, dc: Option<Id>) {
        if let Some(id) = dc
            && let Some(n) = self.node(id)
            && n.kind == K::Operator
        {
            self.s(op_name(n.aux).as_bytes());
        } else {
            self.comp(dc);
        }
    }

    fn maybe_print_fold_expression(&mut self, dc: Id) -> bool {
        let Some(code) = self.op_code_of(self.left(Some(dc))) else {
            return false;
        };
        if code[0] != b'f' {
            return false;
        }
        let ops = self.right(Some(dc));
        let operator = self.left(ops);
        let mut op1 = self.right(ops);
        let mut op2 = None;
        if self.kind(op1) == Some(K::TrinaryArg2) {
            op2 = self.right(op1);
            op1 = self.left(op1);
        }
        let save_idx = self.pack_index;
        self.pack_index = -1;
        match code[1] {
            b'l' => {
                self.s(b"(...");
                self.expr_op(operator);
                self.subexpr(op1);
                self.ch(b')');
            }
            b'r' => {
                self.ch(b'(');
                self.subexpr(op1);
                self.expr_op(operator);
                self.s(b"...)");
            }
            b'L' | b'R' => {
                self.ch(b'(');
                self.subexpr(op1);
                self.expr_op(operator);
                self.s(b"...");
                self.expr_op(operator);
                self.subexpr(op2);
                self.ch(b')');
            }
            _ => {}
        }
        self.pack_index = save_idx;
        true
    }

    fn is_designated_init(&self, dc: Option<Id>) -> bool {
        if !matches!(self.kind(dc), Some(K::Binary | K::Trinary)) {
            return false;
        }
        let Some(code) = self.op_code_of(self.left(dc)) else {
            // libiberty reads the operator table of whatever the left is; a cast is no
            // designator.
            return false;
        };
        code[0] == b'd' && matches!(code[1], b'i' | b'x' | b'X')
    }

    fn maybe_print_designated_init(&mut self, dc: Id) -> bool {
        if !self.is_designated_init(Some(dc)) {
            return false;
        }
        let Some(code) = self.op_code_of(self.left(Some(dc))) else {
            return false;
        };
        let operands = self.right(Some(dc));
        let op1 = self.left(operands);
        let mut op2 = self.right(operands);
        if code[1] == b'i' {
            self.ch(b'.');
        } else {
            self.ch(b'[');
        }
        self.comp(op1);
        if code[1] == b'X' {
            self.s(b" ... ");
            self.comp(self.left(op2));
            op2 = self.right(op2);
        }
        if code[1] != b'i' {
            self.ch(b']');
        }
        if self.is_designated_init(op2) {
            self.comp(op2);
        } else {
            self.ch(b'=');
            self.subexpr(op2);
        }
        true
    }

    fn lambda_parm_name(&mut self, kind: Option<K>, index: i64) {
        let s: &[u8] = match kind {
            Some(K::TemplateTypeParm) => b"$T",
            Some(K::TemplateNonTypeParm) => b"$N",
            Some(K::TemplateTemplateParm) => b"$TT",
            _ => {
                self.failed = true;
                b""
            }
        };
        self.s(s);
        self.num(index);
    }

    fn comp_inner(&mut self, id: Id) {
        let Some(&node) = self.node(id) else {
            self.error();
            return;
        };
        use K::*;
        match node.kind {
            Name => self.s(node.s),
            TaggedName => {
                self.comp(node.l);
                self.s(b"[abi:");
                self.comp(node.r);
                self.ch(b']');
            }
            StructuredBinding => {
                self.ch(b'[');
                let mut dc = Some(id);
                let mut guard = 0;
                while let Some(d) = dc {
                    self.comp(self.left(Some(d)));
                    dc = self.right(Some(d));
                    if dc.is_none() {
                        break;
                    }
                    self.s(b", ");
                    guard += 1;
                    if guard > RECURSION_LIMIT || self.failed {
                        break;
                    }
                }
                self.ch(b']');
            }
            ModuleEntity => {
                self.comp(node.l);
                self.ch(b'@');
                self.comp(node.r);
            }
            ModuleName | ModulePartition => {
                if node.l.is_some() {
                    self.comp(node.l);
                }
                if node.kind == ModulePartition {
                    self.ch(b':');
                } else if node.l.is_some() {
                    self.ch(b'.');
                }
                self.comp(node.r);
            }
            QualName | LocalName => {
                self.comp(node.l);
                self.s(b"::");
                let mut local = node.r;
                if self.kind(local) == Some(DefaultArg)
                    && let Some(ln) = local.and_then(|l| self.node(l))
                {
                    self.s(b"{default arg#");
                    self.num(i64::from(ln.num) + 1);
                    self.s(b"}::");
                    local = ln.l;
                }
                self.comp(local);
            }
            TypedName => self.typed_name(&node),
            Template => self.template(id, &node),
            TemplateParam => self.template_param(&node, id),
            TparmObj => self.prefixed(b"template parameter object for ", node.l),
            Ctor => self.comp(node.l),
            Dtor => {
                self.ch(b'~');
                self.comp(node.l);
            }
            ModuleInit => self.prefixed(b"initializer for module ", node.l),
            Vtable => self.prefixed(b"vtable for ", node.l),
            Vtt => self.prefixed(b"VTT for ", node.l),
            ConstructionVtable => {
                self.s(b"construction vtable for ");
                self.comp(node.l);
                self.s(b"-in-");
                self.comp(node.r);
            }
            Typeinfo => self.prefixed(b"typeinfo for ", node.l),
            TypeinfoName => self.prefixed(b"typeinfo name for ", node.l),
            TypeinfoFn => self.prefixed(b"typeinfo fn for ", node.l),
            Thunk => self.prefixed(b"non-virtual thunk to ", node.l),
            VirtualThunk => self.prefixed(b"virtual thunk to ", node.l),
            CovariantThunk => self.prefixed(b"covariant return thunk to ", node.l),
            JavaClass => self.prefixed(b"java Class for ", node.l),
            Guard => self.prefixed(b"guard variable for ", node.l),
            TlsInit => self.prefixed(b"TLS init function for ", node.l),
            TlsWrapper => self.prefixed(b"TLS wrapper function for ", node.l),
            Reftemp => {
                self.s(b"reference temporary #");
                self.comp(node.r);
                self.s(b" for ");
                self.comp(node.l);
            }
            HiddenAlias => self.prefixed(b"hidden alias for ", node.l),
            TransactionClone => self.prefixed(b"transaction clone for ", node.l),
            NontransactionClone => self.prefixed(b"non-transaction clone for ", node.l),
            SubStd => self.s(node.s),
            Restrict | Volatile | Const => {
                let mut p = self.modifiers;
                while let Some(m) = p.and_then(|m| self.mod_at(m)) {
                    if !m.printed {
                        let mk = self.kind(Some(m.m));
                        if !matches!(mk, Some(Restrict | Volatile | Const)) {
                            break;
                        }
                        if mk == Some(node.kind) {
                            self.comp(node.l);
                            return;
                        }
                    }
                    p = m.next;
                }
                self.modifier(id, node.l, None);
            }
            Reference | RvalueReference => self.reference(id, &node),
            VendorTypeQual | Pointer | Complex | Imaginary => self.modifier(id, node.l, None),
            k if is_fnqual(k) => self.modifier(id, node.l, None),
            BuiltinType => {
                let name = BUILTINS.get(usize::from(node.aux)).map_or("", |b| b.0);
                self.s(name.as_bytes());
            }
            ExtendedBuiltinType => {
                let name = BUILTINS.get(usize::from(node.aux)).map_or("", |b| b.0);
                self.s(name.as_bytes());
                self.num(i64::from(node.num));
                if node.ch != 0 {
                    self.ch(node.ch);
                }
            }
            VendorType => self.comp(node.l),
            FunctionType => {
                if node.l.is_some() {
                    let m = self.push_mod(id);
                    self.comp(node.l);
                    self.modifiers = self.mod_at(m).and_then(|m| m.next);
                    if self.mod_printed(m) {
                        return;
                    }
                    self.ch(b' ');
                }
                self.function_type(id, self.modifiers);
            }
            ArrayType => self.array_type_comp(id, &node),
            PtrmemType | VectorType => {
                let m = self.push_mod(id);
                self.comp(node.r);
                if !self.mod_printed(m) {
                    self.print_mod(id);
                }
                self.modifiers = self.mod_at(m).and_then(|m| m.next);
            }
            Arglist | TemplateArglist => {
                if node.l.is_some() {
                    self.comp(node.l);
                }
                if node.r.is_some() {
                    // libiberty flushes first so that the ", " stays in its buffer.
                    if self.buf_len >= PRINT_BUFFER - 2 {
                        self.flush();
                    }
                    self.s(b", ");
                    let (buf_len, flushes) = (self.buf_len, self.flushes);
                    self.comp(node.r);
                    // If that printed nothing (an empty pack), take the ", " back, unless
                    // the buffer was flushed meanwhile.
                    if self.flushes == flushes && self.buf_len == buf_len {
                        self.out.truncate(self.out.len().saturating_sub(2));
                        self.buf_len = self.buf_len.saturating_sub(2);
                    }
                }
            }
            InitializerList => {
                if node.l.is_some() {
                    self.comp(node.l);
                }
                self.ch(b'{');
                self.comp(node.r);
                self.ch(b'}');
            }
            Operator => {
                let name = op_name(node.aux).as_bytes();
                self.s(b"operator");
                if name.first().is_some_and(|c| c.is_ascii_lowercase()) {
                    self.ch(b' ');
                }
                let name = name.strip_suffix(b" ").unwrap_or(name);
                self.s(name);
            }
            ExtendedOperator => {
                self.s(b"operator ");
                self.comp(node.l);
            }
            Conversion => {
                self.s(b"operator ");
                self.conversion(&node);
            }
            Nullary => self.expr_op(node.l),
            Unary => self.unary(&node),
            Binary => self.binary(id, &node),
            BinaryArgs | TrinaryArg1 | TrinaryArg2 => self.error(),
            Trinary => self.trinary(id, &node),
            Literal | LiteralNeg => self.literal(&node),
            VendorExpr => {
                self.comp(node.l);
                self.ch(b'(');
                self.comp(node.r);
                self.ch(b')');
            }
            Number => self.num(i64::from(node.num)),
            JavaResource => self.prefixed(b"java resource ", node.l),
            CompoundName => {
                self.comp(node.l);
                self.comp(node.r);
            }
            Character => self.ch(node.ch),
            Decltype => {
                self.s(b"decltype (");
                self.comp(node.l);
                self.ch(b')');
            }
            PackExpansion => {
                let a = if self.lambda_tpl_parms == 0 {
                    self.find_pack(node.l, 0)
                } else {
                    None
                };
                match a {
                    None => {
                        self.subexpr(node.l);
                        self.s(b"...");
                    }
                    Some(a) => {
                        let len = self.pack_length(Some(a));
                        for i in 0..len {
                            if i != 0 {
                                self.s(b", ");
                            }
                            self.pack_index = i;
                            self.comp(node.l);
                            if self.failed {
                                return;
                            }
                        }
                    }
                }
            }
            FunctionParam => {
                if node.num == 0 {
                    self.s(b"this");
                } else {
                    self.s(b"{parm#");
                    self.num(i64::from(node.num));
                    self.ch(b'}');
                }
            }
            GlobalConstructors => self.prefixed(b"global constructors keyed to ", node.l),
            GlobalDestructors => self.prefixed(b"global destructors keyed to ", node.l),
            Lambda => self.lambda(&node),
            UnnamedType => {
                self.s(b"{unnamed type#");
                self.num(i64::from(node.num) + 1);
                self.ch(b'}');
            }
            Clone => {
                self.comp(node.l);
                self.s(b" [clone ");
                self.comp(node.r);
                self.ch(b']');
            }
            TemplateHead => {
                self.ch(b'<');
                let mut parm = node.l;
                let mut count = 0;
                while parm.is_some() {
                    if count != 0 {
                        self.s(b", ");
                    }
                    count += 1;
                    self.comp(parm);
                    if self.failed {
                        return;
                    }
                    parm = self.right(parm);
                }
                self.ch(b'>');
            }
            TemplateTypeParm => self.s(b"typename"),
            TemplateNonTypeParm => self.comp(node.l),
            TemplateTemplateParm => {
                self.s(b"template");
                self.comp(node.l);
                self.s(b" class");
            }
            TemplatePackParm => {
                self.comp(node.l);
                self.s(b"...");
            }
            _ => self.error(),
        }
    }

    fn prefixed(&mut self, text: &[u8], dc: Option<Id>) {
        self.s(text);
        self.comp(dc);
    }

    fn typed_name(&mut self, node: &Node<'a>) {
        let hold_modifiers = self.modifiers;
        self.modifiers = None;
        let base = self.mods.len();
        let mut i: usize = 0;
        let mut typed_name = node.l;
        while let Some(tn) = typed_name {
            if i >= 4 {
                self.error();
                return;
            }
            self.mods.push(Mod {
                next: self.modifiers,
                m: tn,
                printed: false,
                templates: self.templates,
            });
            self.modifiers = Some((base + i) as ModId);
            i += 1;
            if !self.kind(Some(tn)).is_some_and(is_fnqual) {
                break;
            }
            typed_name = self.left(Some(tn));
        }
        let Some(mut tn) = typed_name else {
            self.error();
            return;
        };
        if self.kind(Some(tn)) == Some(K::LocalName) {
            let mut t = self.right(Some(tn));
            if self.kind(t) == Some(K::DefaultArg) {
                t = self.left(t);
            }
            while let Some(q) = t {
                if !self.kind(Some(q)).is_some_and(is_fnqual) {
                    break;
                }
                if i >= 4 {
                    self.error();
                    return;
                }
                // adpm[i] = adpm[i - 1]; adpm[i].next = &adpm[i - 1];
                let Some(prev) = self.mods.get(base + i - 1).copied() else {
                    self.error();
                    return;
                };
                self.mods.truncate(base + i);
                self.mods.push(Mod {
                    next: Some((base + i - 1) as ModId),
                    ..prev
                });
                self.modifiers = Some((base + i) as ModId);
                if let Some(pm) = self.mods.get_mut(base + i - 1) {
                    pm.m = q;
                    pm.printed = false;
                    pm.templates = self.templates;
                }
                i += 1;
                t = self.left(Some(q));
            }
            let Some(t) = t else {
                self.error();
                return;
            };
            tn = t;
        }
        let is_template = self.kind(Some(tn)) == Some(K::Template);
        let hold_templates = self.templates;
        if is_template {
            self.push_tpl(Some(tn));
        }
        self.comp(node.r);
        if is_template {
            self.templates = hold_templates;
        }
        while i > 0 {
            i -= 1;
            let Some(m) = self.mods.get(base + i).copied() else {
                break;
            };
            if !m.printed {
                self.ch(b' ');
                self.print_mod(m.m);
            }
        }
        self.modifiers = hold_modifiers;
    }

    fn template(&mut self, id: Id, node: &Node<'a>) {
        let hold_current = self.current_template;
        self.current_template = Some(id);
        let hold_dpm = self.modifiers;
        self.modifiers = None;
        self.comp(node.l);
        if self.last == b'<' {
            self.ch(b' ');
        }
        self.ch(b'<');
        self.comp(node.r);
        if self.last == b'>' {
            self.ch(b' ');
        }
        self.ch(b'>');
        self.modifiers = hold_dpm;
        self.current_template = hold_current;
    }

    fn template_param(&mut self, node: &Node<'a>, id: Id) {
        if self.lambda_tpl_parms > node.num.saturating_add(1) {
            let decl = self
                .templates
                .and_then(|t| self.tpls.get(t as usize))
                .and_then(|t| t.decl);
            let mut a = self.left(decl);
            let mut c = node.num;
            while a.is_some() && c > 0 {
                a = self.right(a);
                c -= 1;
            }
            if self.kind(a) == Some(K::TemplatePackParm) {
                a = self.left(a);
            }
            if a.is_none() {
                self.failed = true;
            } else {
                self.lambda_parm_name(self.kind(a), i64::from(node.num));
            }
        } else if self.lambda_tpl_parms != 0 {
            self.s(b"auto:");
            self.num(i64::from(node.num) + 1);
        } else {
            let mut a = self.lookup_template_argument(id);
            if self.kind(a) == Some(K::TemplateArglist) {
                a = self.index_template_argument(a, self.pack_index);
            }
            if a.is_none() {
                self.error();
                return;
            }
            let hold = self.templates;
            self.templates = self.tpl_next(hold);
            self.comp(a);
            self.templates = hold;
        }
    }

    fn modifier(&mut self, id: Id, inner: Option<Id>, restore: Option<Option<TplId>>) {
        let m = self.push_mod(id);
        self.comp(inner);
        if !self.mod_printed(m) {
            self.print_mod(id);
        }
        self.modifiers = self.mod_at(m).and_then(|m| m.next);
        if let Some(t) = restore {
            self.templates = t;
        }
    }

    fn reference(&mut self, id: Id, node: &Node<'a>) {
        let mut dc = id;
        let mut mod_inner: Option<Id> = None;
        let mut restore: Option<Option<TplId>> = None;
        let mut sub = node.l;
        if self.lambda_tpl_parms == 0
            && let Some(s) = sub
            && self.kind(Some(s)) == Some(K::TemplateParam)
        {
            match self.get_saved_scope(s) {
                None => {
                    self.save_scope(s);
                    if self.failed {
                        return;
                    }
                }
                Some(scope_templates) => {
                    // Is SUB or DC (other than the top) on the component stack?
                    let top = self.stack.len().saturating_sub(1);
                    let found = self
                        .stack
                        .iter()
                        .enumerate()
                        .any(|(i, &c)| c == s || (c == id && i != top));
                    if !found {
                        restore = Some(self.templates);
                        self.templates = scope_templates;
                    }
                }
            }
            let mut a = self.lookup_template_argument(s);
            if self.kind(a) == Some(K::TemplateArglist) {
                a = self.index_template_argument(a, self.pack_index);
            }
            if a.is_none() {
                if let Some(t) = restore {
                    self.templates = t;
                }
                self.error();
                return;
            }
            sub = a;
        }
        let sk = self.kind(sub);
        if sk == Some(K::Reference) || sk == Some(node.kind) {
            if let Some(s) = sub {
                dc = s;
            }
        } else if sk == Some(K::RvalueReference) {
            mod_inner = self.left(sub);
        }
        let inner = if mod_inner.is_some() {
            mod_inner
        } else {
            self.left(Some(dc))
        };
        self.modifier(dc, inner, restore);
    }

    fn array_type_comp(&mut self, id: Id, node: &Node<'a>) {
        let hold_modifiers = self.modifiers;
        let base = self.mods.len();
        self.mods.push(Mod {
            next: hold_modifiers,
            m: id,
            printed: false,
            templates: self.templates,
        });
        self.modifiers = Some(base as ModId);
        let mut i = 1usize;
        let mut pdpm = hold_modifiers;
        while let Some(pm) = pdpm.and_then(|p| self.mod_at(p)) {
            if !matches!(
                self.kind(Some(pm.m)),
                Some(K::Restrict | K::Volatile | K::Const)
            ) {
                break;
            }
            if !pm.printed {
                if i >= 4 {
                    self.error();
                    return;
                }
                self.mods.push(Mod {
                    next: self.modifiers,
                    ..pm
                });
                self.modifiers = Some((base + i) as ModId);
                if let Some(p) = pdpm {
                    self.set_printed(p, true);
                }
                i += 1;
            }
            pdpm = pm.next;
        }
        self.comp(node.r);
        self.modifiers = hold_modifiers;
        if self.mod_printed(base as ModId) {
            return;
        }
        while i > 1 {
            i -= 1;
            if let Some(m) = self.mods.get(base + i).copied() {
                self.print_mod(m.m);
            }
        }
        self.array_type(id, self.modifiers);
    }

    fn print_mod_list(&mut self, mods: Option<ModId>, suffix: bool) {
        let mut mods = mods;
        loop {
            let Some(mid) = mods else { return };
            let Some(m) = self.mod_at(mid) else { return };
            if self.failed {
                return;
            }
            let mk = self.kind(Some(m.m));
            if m.printed || (!suffix && mk.is_some_and(is_fnqual)) {
                mods = m.next;
                continue;
            }
            self.set_printed(mid, true);
            let hold_dpt = self.templates;
            self.templates = m.templates;
            match mk {
                Some(K::FunctionType) => {
                    self.function_type(m.m, m.next);
                    self.templates = hold_dpt;
                    return;
                }
                Some(K::ArrayType) => {
                    self.array_type(m.m, m.next);
                    self.templates = hold_dpt;
                    return;
                }
                Some(K::LocalName) => {
                    let hold_modifiers = self.modifiers;
                    self.modifiers = None;
                    self.comp(self.left(Some(m.m)));
                    self.modifiers = hold_modifiers;
                    self.s(b"::");
                    let mut dc = self.right(Some(m.m));
                    if self.kind(dc) == Some(K::DefaultArg)
                        && let Some(n) = dc.and_then(|d| self.node(d))
                    {
                        self.s(b"{default arg#");
                        self.num(i64::from(n.num) + 1);
                        self.s(b"}::");
                        dc = n.l;
                    }
                    while self.kind(dc).is_some_and(is_fnqual) {
                        dc = self.left(dc);
                    }
                    self.comp(dc);
                    self.templates = hold_dpt;
                    return;
                }
                _ => {}
            }
            self.print_mod(m.m);
            self.templates = hold_dpt;
            mods = m.next;
        }
    }

    fn print_mod(&mut self, m: Id) {
        let Some(&node) = self.node(m) else {
            self.error();
            return;
        };
        use K::*;
        match node.kind {
            Restrict | RestrictThis => self.s(b" restrict"),
            Volatile | VolatileThis => self.s(b" volatile"),
            Const | ConstThis => self.s(b" const"),
            TransactionSafe => self.s(b" transaction_safe"),
            Noexcept | ThrowSpec => {
                self.s(if node.kind == Noexcept {
                    b" noexcept"
                } else {
                    b" throw"
                });
                if node.r.is_some() {
                    self.ch(b'(');
                    self.comp(node.r);
                    self.ch(b')');
                }
            }
            VendorTypeQual => {
                self.ch(b' ');
                self.comp(node.r);
            }
            Pointer => self.ch(b'*'),
            ReferenceThis => self.s(b" &"),
            Reference => self.ch(b'&'),
            RvalueReferenceThis => self.s(b" &&"),
            RvalueReference => self.s(b"&&"),
            Complex => self.s(b" _Complex"),
            Imaginary => self.s(b" _Imaginary"),
            PtrmemType => {
                if self.last != b'(' {
                    self.ch(b' ');
                }
                self.comp(node.l);
                self.s(b"::*");
            }
            TypedName => self.comp(node.l),
            VectorType => {
                self.s(b" __vector(");
                self.comp(node.l);
                self.ch(b')');
            }
            _ => self.comp(Some(m)),
        }
    }

    fn function_type(&mut self, dc: Id, mods: Option<ModId>) {
        let mut need_paren = false;
        let mut need_space = false;
        let mut p = mods;
        while let Some(m) = p.and_then(|p| self.mod_at(p)) {
            if m.printed {
                break;
            }
            match self.kind(Some(m.m)) {
                Some(K::Pointer | K::Reference | K::RvalueReference) => need_paren = true,
                Some(
                    K::Restrict
                    | K::Volatile
                    | K::Const
                    | K::VendorTypeQual
                    | K::Complex
                    | K::Imaginary
                    | K::PtrmemType,
                ) => {
                    need_space = true;
                    need_paren = true;
                }
                _ => {}
            }
            if need_paren {
                break;
            }
            p = m.next;
        }
        if need_paren {
            if !need_space && self.last != b'(' && self.last != b'*' {
                need_space = true;
            }
            if need_space && self.last != b' ' {
                self.ch(b' ');
            }
            self.ch(b'(');
        }
        let hold_modifiers = self.modifiers;
        self.modifiers = None;
        self.print_mod_list(mods, false);
        if need_paren {
            self.ch(b')');
        }
        self.ch(b'(');
        let r = self.right(Some(dc));
        if r.is_some() {
            self.comp(r);
        }
        self.ch(b')');
        self.print_mod_list(mods, true);
        self.modifiers = hold_modifiers;
    }

    fn array_type(&mut self, dc: Id, mods: Option<ModId>) {
        let mut need_space = true;
        if mods.is_some() {
            let mut need_paren = false;
            let mut p = mods;
            while let Some(m) = p.and_then(|p| self.mod_at(p)) {
                if !m.printed {
                    if self.kind(Some(m.m)) == Some(K::ArrayType) {
                        need_space = false;
                    } else {
                        need_paren = true;
                        need_space = true;
                    }
                    break;
                }
                p = m.next;
            }
            if need_paren {
                self.s(b" (");
            }
            self.print_mod_list(mods, false);
            if need_paren {
                self.ch(b')');
            }
        }
        if need_space {
            self.ch(b' ');
        }
        self.ch(b'[');
        let l = self.left(Some(dc));
        if l.is_some() {
            self.comp(l);
        }
        self.ch(b']');
    }

    fn conversion(&mut self, node: &Node<'a>) {
        let hold = self.templates;
        if self.current_template.is_some() {
            self.push_tpl(self.current_template);
        }
        if self.kind(node.l) != Some(K::Template) {
            self.comp(node.l);
            if self.current_template.is_some() {
                self.templates = hold;
            }
        } else {
            self.comp(self.left(node.l));
            if self.current_template.is_some() {
                self.templates = hold;
            }
            if self.last == b'<' {
                self.ch(b' ');
            }
            self.ch(b'<');
            self.comp(self.right(node.l));
            if self.last == b'>' {
                self.ch(b' ');
            }
            self.ch(b'>');
        }
    }

    fn unary(&mut self, node: &Node<'a>) {
        let op = node.l;
        let mut operand = node.r;
        let code = self.op_code_of(op);
        if let Some(code) = code {
            if &code == b"ad"
                && self.kind(operand) == Some(K::TypedName)
                && self.kind(self.left(operand)) == Some(K::QualName)
                && self.kind(self.right(operand)) == Some(K::FunctionType)
            {
                operand = self.left(operand);
            }
            if self.kind(operand) == Some(K::BinaryArgs) {
                operand = self.left(operand);
                self.subexpr(operand);
                self.expr_op(op);
                return;
            }
        }
        if code == Some(*b"sZ") {
            let a = self.find_pack(operand, 0);
            let len = self.pack_length(a);
            self.num(i64::from(len));
            return;
        } else if code == Some(*b"sP") {
            let len = self.args_length(operand);
            self.num(i64::from(len));
            return;
        }
        if self.kind(op) != Some(K::Cast) {
            self.expr_op(op);
        } else {
            self.ch(b'(');
            self.comp(self.left(op));
            self.ch(b')');
        }
        if code == Some(*b"gs") {
            self.comp(operand);
        } else if code == Some(*b"st") {
            self.ch(b'(');
            self.comp(operand);
            self.ch(b')');
        } else {
            self.subexpr(operand);
        }
    }

    fn binary(&mut self, id: Id, node: &Node<'a>) {
        if self.kind(node.r) != Some(K::BinaryArgs) {
            self.error();
            return;
        }
        let op = node.l;
        let Some(code) = self.op_code_of(op) else {
            // libiberty reads an operator's fields from whatever this is.
            self.error();
            return;
        };
        let args_l = self.left(node.r);
        let args_r = self.right(node.r);
        if code[1] == b'c' && matches!(code[0], b's' | b'd' | b'c' | b'r') {
            self.expr_op(op);
            self.ch(b'<');
            self.comp(args_l);
            self.s(b">(");
            self.comp(args_r);
            self.ch(b')');
            return;
        }
        if self.maybe_print_fold_expression(id) {
            return;
        }
        if self.maybe_print_designated_init(id) {
            return;
        }
        let is_gt = op_name(self.node_aux(op)) == ">";
        if is_gt {
            self.ch(b'(');
        }
        if &code == b"cl" && self.kind(args_l) == Some(K::TypedName) {
            if self.kind(self.right(args_l)) != Some(K::FunctionType) {
                self.error();
            }
            self.subexpr(self.left(args_l));
        } else {
            self.subexpr(args_l);
        }
        if &code == b"ix" {
            self.ch(b'[');
            self.comp(args_r);
            self.ch(b']');
        } else {
            if &code != b"cl" {
                self.expr_op(op);
            }
            self.subexpr(args_r);
        }
        if is_gt {
            self.ch(b')');
        }
    }

    fn node_aux(&self, id: Option<Id>) -> u8 {
        id.and_then(|i| self.node(i)).map_or(u8::MAX, |n| n.aux)
    }

    fn trinary(&mut self, id: Id, node: &Node<'a>) {
        let a1 = node.r;
        let a2 = self.right(a1);
        if self.kind(a1) != Some(K::TrinaryArg1) || self.kind(a2) != Some(K::TrinaryArg2) {
            self.error();
            return;
        }
        if self.op_code_of(node.l).is_none() {
            self.error();
            return;
        }
        if self.maybe_print_fold_expression(id) {
            return;
        }
        if self.maybe_print_designated_init(id) {
            return;
        }
        let op = node.l;
        let first = self.left(a1);
        let second = self.left(a2);
        let third = self.right(a2);
        if self.op_code_of(op) == Some(*b"qu") {
            self.subexpr(first);
            self.expr_op(op);
            self.subexpr(second);
            self.s(b" : ");
            self.subexpr(third);
        } else {
            self.s(b"new ");
            if self.left(first).is_some() {
                self.subexpr(first);
                self.ch(b' ');
            }
            self.comp(second);
            if third.is_some() {
                self.subexpr(third);
            }
        }
    }

    fn literal(&mut self, node: &Node<'a>) {
        let mut tp = PrintKind::Default;
        let neg = node.kind == K::LiteralNeg;
        if let Some(t) = node.l.and_then(|l| self.node(l))
            && t.kind == K::BuiltinType
        {
            tp = BUILTINS
                .get(usize::from(t.aux))
                .map_or(PrintKind::Default, |b| b.1);
            let rn = node.r.and_then(|r| self.node(r));
            let r_is_name = rn.is_some_and(|n| n.kind == K::Name);
            match tp {
                PrintKind::Int
                | PrintKind::Unsigned
                | PrintKind::Long
                | PrintKind::UnsignedLong
                | PrintKind::LongLong
                | PrintKind::UnsignedLongLong
                    if r_is_name =>
                {
                    if neg {
                        self.ch(b'-');
                    }
                    self.comp(node.r);
                    let suffix: &[u8] = match tp {
                        PrintKind::Unsigned => b"u",
                        PrintKind::Long => b"l",
                        PrintKind::UnsignedLong => b"ul",
                        PrintKind::LongLong => b"ll",
                        PrintKind::UnsignedLongLong => b"ull",
                        _ => b"",
                    };
                    self.s(suffix);
                    return;
                }
                PrintKind::Bool => {
                    if let Some(rn) = rn
                        && rn.kind == K::Name
                        && rn.s.len() == 1
                        && !neg
                    {
                        match rn.s.first() {
                            Some(b'0') => {
                                self.s(b"false");
                                return;
                            }
                            Some(b'1') => {
                                self.s(b"true");
                                return;
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        self.ch(b'(');
        self.comp(node.l);
        self.ch(b')');
        if neg {
            self.ch(b'-');
        }
        if tp == PrintKind::Float {
            self.ch(b'[');
        }
        self.comp(node.r);
        if tp == PrintKind::Float {
            self.ch(b']');
        }
    }

    fn lambda(&mut self, node: &Node<'a>) {
        self.s(b"{lambda");
        let mut parms = node.l;
        let saved_tpl_parms = self.lambda_tpl_parms;
        self.lambda_tpl_parms = 0;
        let hold_templates = self.templates;
        let is_head = self.kind(parms) == Some(K::TemplateHead);
        self.push_tpl(if is_head { parms } else { None });
        if is_head {
            self.ch(b'<');
            let mut parm = self.left(parms);
            while let Some(pm) = parm {
                if self.lambda_tpl_parms != 0 {
                    self.s(b", ");
                }
                self.lambda_tpl_parms += 1;
                self.comp(Some(pm));
                self.ch(b' ');
                let mut p2 = Some(pm);
                if self.kind(p2) == Some(K::TemplatePackParm) {
                    p2 = self.left(p2);
                }
                self.lambda_parm_name(self.kind(p2), i64::from(self.lambda_tpl_parms - 1));
                if self.failed {
                    return;
                }
                parm = self.right(p2);
            }
            self.ch(b'>');
            parms = self.right(parms);
        }
        self.lambda_tpl_parms += 1;
        self.ch(b'(');
        self.comp(parms);
        self.lambda_tpl_parms = saved_tpl_parms;
        self.templates = hold_templates;
        self.s(b")#");
        self.num(i64::from(node.num) + 1);
        self.ch(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_names() {
        for (m, want) in [
            (
                "_ZN2lg4m0006f00000Emi",
                Some("lg::m000::f00000(unsigned long, int)"),
            ),
            ("_Z3foov", Some("foo()")),
            ("_Z3foo", Some("foo")),
            ("_ZN1a1bE", Some("a::b")),
            (
                "_Z1fPKcRKN2ns4NodeEOiRPv",
                Some("f(char const*, ns::Node const&, int&&, void*&)"),
            ),
            ("_Z1fKPc", Some("f(char* const)")),
            // Left to the full demangler: templates, substitutions, const members, clones.
            ("_ZN2lg4m0004spinILi12EEEmm", None),
            ("_Z1fRKSs", None),
            ("_ZNK1a1bEv", None),
            ("_Z3fooi.cold", None),
            ("_ZN12_GLOBAL__N_11fEv", None),
            ("_Z1fvi", None),
        ] {
            assert_eq!(simple(m.as_bytes()).as_deref(), want, "{m}");
            if let Some(w) = want {
                assert_eq!(full(m.as_bytes()).as_deref(), Some(w), "{m}");
            }
        }
    }

    /// Wherever the short way answers, it answers what the full demangler does: checked on
    /// names made at random from the pieces both read (and pieces only the full one reads).
    #[test]
    fn simple_agrees_with_full_on_random_names() {
        const PIECES: [&str; 34] = [
            "N",
            "E",
            "P",
            "K",
            "R",
            "O",
            "V",
            "v",
            "i",
            "c",
            "m",
            "j",
            "a",
            "x",
            "z",
            "e",
            "1a",
            "2ab",
            "3abc",
            "1_",
            "2$x",
            "S_",
            "St",
            "I",
            "D",
            "0",
            "C1",
            "plE",
            "Li1E",
            "10abcdefghij",
            "12_GLOBAL__N_1",
            "5a b c",
            ".cold",
            "u3foo",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut answered = 0;
        for _ in 0..200_000 {
            let mut name = String::from("_Z");
            for _ in 0..1 + next(8) {
                name.push_str(PIECES.get(next(PIECES.len())).copied().unwrap_or_default());
            }
            if let Some(s) = simple(name.as_bytes()) {
                answered += 1;
                assert_eq!(Some(s), full(name.as_bytes()), "{name}");
            }
        }
        // The short way must have been taken often enough for the check to mean something.
        assert!(answered > 1000, "{answered}");
    }
}
