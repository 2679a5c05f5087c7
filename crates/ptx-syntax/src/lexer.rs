//! Turns PTX text into tokens. Never fails: stray characters become
//! [`TokenKind::Unknown`] tokens that the parser reports.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use crate::token::{Token, TokenKind};

/// Lexes all of `source`; the last token is always [`TokenKind::Eof`].
/// Comments and whitespace are skipped.
pub fn lex(source: &str, file: FileId) -> Vec<Token> {
    let mut lexer = Lexer::new(source, file);
    let mut tokens = Vec::with_capacity(source.len() / 4);
    loop {
        let token = lexer.next_token();
        tokens.push(token);
        if token.kind == TokenKind::Eof {
            return tokens;
        }
    }
}

/// An on-demand token stream, so that the parser needs no token buffer.
#[derive(Clone, Debug)]
pub struct Lexer<'s> {
    bytes: &'s [u8],
    file: FileId,
    pos: usize,
    glued: bool,
    first: bool,
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `source`.
    pub fn new(source: &'s str, file: FileId) -> Lexer<'s> {
        Lexer { bytes: source.as_bytes(), file, pos: 0, glued: false, first: true }
    }

    /// The next token; [`TokenKind::Eof`] at the end, and again on every later call.
    pub fn next_token(&mut self) -> Token {
        let bytes = self.bytes;
        let start = self.pos;
        let (pos, newline, unterminated) = skip_trivia(bytes, start);
        self.pos = pos;
        let glued = self.glued && self.pos == start;
        let line_start = std::mem::take(&mut self.first) || newline;
        if unterminated {
            // The rest is an open comment: ptxas stops at its start.
            self.glued = false;
            let span = Span::new(self.file, self.pos, self.pos);
            self.pos = bytes.len();
            return Token { kind: TokenKind::UnterminatedComment, span, glued: false, line_start };
        }
        if self.pos >= bytes.len() {
            self.glued = false;
            let span = Span::new(self.file, self.pos, self.pos);
            return Token { kind: TokenKind::Eof, span, glued: false, line_start: true };
        }
        let (kind, end) = next_token(bytes, self.pos);
        let token = Token { kind, span: Span::new(self.file, self.pos, end), glued, line_start };
        self.pos = end;
        self.glued = true;
        token
    }
}

/// Skips whitespace, comments and preprocessor line markers from `pos`.
/// Returns where the next token starts, whether a line break was skipped,
/// and whether a `/*` comment runs to the end of the input (then the
/// position is the comment's start).
fn skip_trivia(bytes: &[u8], mut pos: usize) -> (usize, bool, bool) {
    let mut newline = false;
    while let Some(&b) = bytes.get(pos) {
        match (b, bytes.get(pos + 1)) {
            (b'\n', _) => {
                newline = true;
                pos += 1;
            }
            // ptxas takes a form feed and DOS's end-of-file mark (0x1a) as
            // blanks, but not a vertical tab.
            (b' ' | b'\t' | b'\r' | 0x0c | 0x1a, _) => pos += 1,
            // The line break after a line comment is seen by the next round.
            (b'/', Some(b'/')) => pos = memchr(bytes, pos, b'\n'),
            (b'/', Some(b'*')) => {
                let Some(close) = bytes[pos + 2..].windows(2).position(|w| w == b"*/") else {
                    return (pos, newline, true);
                };
                let end = pos + 2 + close + 2;
                newline |= bytes[pos..end].contains(&b'\n');
                pos = end;
            }
            // Anywhere on a line, as ptxas takes them.
            (b'#', _) => match line_marker_end(bytes, pos) {
                Some(end) => pos = end,
                None => break,
            },
            _ => break,
        }
    }
    (pos, newline, false)
}

/// The end (before the line break) of a C preprocessor line marker at
/// `pos`, which ptxas skips: `# 12 "file.cu" [flags]` or `#line 12
/// "file.cu"`. Anything else starting with `#` is no marker.
fn line_marker_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let line_end = memchr(bytes, pos, b'\n');
    let line = &bytes[pos + 1..line_end];
    let blanks = |s: &[u8]| s.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r')).count();
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = line.strip_prefix(b"line").unwrap_or(line);
    rest = &rest[blanks(rest)..];
    let n = digits(rest);
    if n == 0 || blanks(&rest[n..]) == 0 {
        return None;
    }
    rest = &rest[n..];
    rest = &rest[blanks(rest)..];
    let (string_end, closed) = string_end(rest, 0);
    if !rest.starts_with(b"\"") || !closed {
        return None;
    }
    rest = &rest[string_end..];
    // Flags: numbers separated by blanks.
    loop {
        let b = blanks(rest);
        rest = &rest[b..];
        let n = digits(rest);
        if n == 0 || (b == 0 && n > 0) {
            break;
        }
        rest = &rest[n..];
    }
    rest.is_empty().then_some(line_end)
}

/// What ptxas refuses in the whole file before it parses anything: a NUL
/// byte anywhere (`Unexpected EOF encountered on line N`), or a non-ASCII
/// byte outside comments (`Unexpected non-ASCII character encountered on
/// line N`), whichever comes first. ptxas names no file in either message.
pub(crate) fn forbidden_byte(source: &str) -> Option<Diagnostic> {
    let bytes = source.as_bytes();
    if bytes.iter().all(|&b| b != 0 && b.is_ascii()) {
        return None;
    }
    let line = |pos: usize| 1 + bytes[..pos].iter().filter(|&&b| b == b'\n').count();
    let mut pos = 0;
    while let Some(&b) = bytes.get(pos) {
        match (b, bytes.get(pos + 1)) {
            (0, _) => return Some(Diagnostic::bare(format!("Unexpected EOF encountered on line {}", line(pos)))),
            (0x80.., _) => {
                return Some(Diagnostic::bare(format!(
                    "Unexpected non-ASCII character encountered on line {}",
                    line(pos)
                )));
            }
            (b'/', Some(b'/')) => {
                let end = memchr(bytes, pos, b'\n');
                if let Some(nul) = memchr_in(bytes, pos, end, 0) {
                    return Some(Diagnostic::bare(format!("Unexpected EOF encountered on line {}", line(nul))));
                }
                pos = end;
            }
            (b'/', Some(b'*')) => {
                let end = bytes[pos + 2..].windows(2).position(|w| w == b"*/").map_or(bytes.len(), |i| pos + 2 + i + 2);
                if let Some(nul) = memchr_in(bytes, pos, end, 0) {
                    return Some(Diagnostic::bare(format!("Unexpected EOF encountered on line {}", line(nul))));
                }
                pos = end;
            }
            _ => pos += 1,
        }
    }
    None
}

fn memchr_in(bytes: &[u8], from: usize, to: usize, needle: u8) -> Option<usize> {
    bytes[from..to].iter().position(|&b| b == needle).map(|i| from + i)
}

fn memchr(bytes: &[u8], from: usize, needle: u8) -> usize {
    bytes[from..].iter().position(|&b| b == needle).map_or(bytes.len(), |i| from + i)
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn ident_end(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).copied().is_some_and(is_ident_char) {
        pos += 1;
    }
    pos
}

fn next_token(bytes: &[u8], pos: usize) -> (TokenKind, usize) {
    let b = bytes[pos];
    let next = bytes.get(pos + 1).copied();
    match b {
        b'.' if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') => {
            (TokenKind::Dot, dotted_end(bytes, pos + 1))
        }
        b'%' if next.is_some_and(|c| is_ident_char(c) || c == b'%') => {
            let mut end = pos + 1;
            if next == Some(b'%') {
                end += 1;
            }
            (TokenKind::Ident, ident_end(bytes, end))
        }
        b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' => (TokenKind::Ident, ident_end(bytes, pos)),
        b'0'..=b'9' => number(bytes, pos),
        b'"' => match string_end(bytes, pos) {
            (end, true) => (TokenKind::Str, end),
            // An unterminated string is no token the parser can accept.
            (end, false) => (TokenKind::Unknown, end),
        },
        // Operators of two characters first, then single characters.
        b'<' | b'>' | b'&' | b'|' | b'=' | b'!' | b':'
            if matches!(
                (b, next),
                (b'<', Some(b'<' | b'='))
                    | (b'>', Some(b'>' | b'='))
                    | (b'&', Some(b'&'))
                    | (b'|', Some(b'|'))
                    | (b'=' | b'!', Some(b'='))
                    | (b':', Some(b':'))
            ) =>
        {
            (TokenKind::Punct, pos + 2)
        }
        b',' | b';' | b':' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/'
        | b'%' | b'!' | b'~' | b'&' | b'|' | b'^' | b'=' | b'@' | b'?' => (TokenKind::Punct, pos + 1),
        // The source is valid UTF-8: keep a multi-byte character whole so
        // spans stay on character boundaries.
        _ => (TokenKind::Unknown, pos + utf8_len(b).min(bytes.len() - pos)),
    }
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// A dotted word continues through identifier characters and `::` joints
/// (`.shared::cluster`, `.mbarrier::complete_tx::bytes`).
fn dotted_end(bytes: &[u8], pos: usize) -> usize {
    let mut end = ident_end(bytes, pos);
    while bytes[end..].starts_with(b"::") && bytes.get(end + 2).copied().is_some_and(is_ident_char) {
        end = ident_end(bytes, end + 2);
    }
    end
}

/// End of the string starting at `pos`, and whether it was closed before
/// the end of the line.
fn string_end(bytes: &[u8], mut pos: usize) -> (usize, bool) {
    pos += 1;
    while let Some(&b) = bytes.get(pos) {
        match b {
            b'\\' if bytes.get(pos + 1).is_some_and(|&c| c != b'\n') => pos += 2,
            b'"' => return (pos + 1, true),
            b'\n' => return (pos, false),
            _ => pos += 1,
        }
    }
    (bytes.len(), false)
}

fn number(bytes: &[u8], pos: usize) -> (TokenKind, usize) {
    let rest = &bytes[pos..];
    let hex_run = |from: usize| from + rest[from..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if let [b'0', marker, ..] = rest {
        match marker {
            // Exactly 8 (`0f`) or 16 (`0d`) digits: ptxas reads `0f3F80000`
            // as `0` then `f3F80000`, and `0f3F8000000` as a float then `0`.
            b'f' | b'F' | b'd' | b'D' => {
                let digits = if matches!(marker, b'f' | b'F') { 8 } else { 16 };
                return if hex_run(2) >= 2 + digits {
                    (TokenKind::Float, pos + 2 + digits)
                } else {
                    (TokenKind::Int, pos + 1)
                };
            }
            b'x' | b'X' => {
                let end = hex_run(2);
                return (TokenKind::Int, pos + int_suffix(rest, end));
            }
            _ => {}
        }
    }
    let digits = |from: usize| from + rest[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = digits(0);
    // An octal literal stops at its first non-octal digit (`08` is `0`, `8`),
    // unless it turns out to be a decimal float (`09.5`).
    let octal = 1 + rest[1..].iter().take_while(|b| matches!(b, b'0'..=b'7')).count();
    if rest[0] == b'0' && end > 1 && !matches!(rest.get(end), Some(b'.' | b'e' | b'E')) {
        end = octal;
    }
    let mut float = false;
    if rest.get(end) == Some(&b'.') && rest.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
        float = true;
    }
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(rest.get(end + 1), Some(b'+' | b'-')));
        if rest.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign);
            float = true;
        }
    }
    if float {
        return (TokenKind::Float, pos + end);
    }
    if rest.starts_with(b"0b") || rest.starts_with(b"0B") {
        end = 2 + rest[2..].iter().take_while(|b| matches!(b, b'0' | b'1')).count();
    }
    (TokenKind::Int, pos + int_suffix(rest, end))
}

fn int_suffix(rest: &[u8], end: usize) -> usize {
    if matches!(rest.get(end), Some(b'U' | b'u')) { end + 1 } else { end }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, &str, bool)> {
        lex(src, FileId(0)).iter().map(|t| (t.kind, &src[t.span.range()], t.glued)).collect()
    }

    #[test]
    fn instruction_with_modifiers() {
        use TokenKind::*;
        assert_eq!(
            kinds("@!%p1 ld.shared::cta.v2.f32 {%f1,_}, [x+-4]; // c"),
            vec![
                (Punct, "@", false),
                (Punct, "!", true),
                (Ident, "%p1", true),
                (Ident, "ld", false),
                (Dot, ".shared::cta", true),
                (Dot, ".v2", true),
                (Dot, ".f32", true),
                (Punct, "{", false),
                (Ident, "%f1", true),
                (Punct, ",", true),
                (Ident, "_", true),
                (Punct, "}", true),
                (Punct, ",", true),
                (Punct, "[", false),
                (Ident, "x", true),
                (Punct, "+", true),
                (Punct, "-", true),
                (Int, "4", true),
                (Punct, "]", true),
                (Punct, ";", true),
                (Eof, "", false),
            ]
        );
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        let got: Vec<_> = kinds("0f3F800000 0d3FF0000000000000 1.5e-3 0x1fU 0b101 017 42 1e5")
            .into_iter()
            .map(|(k, s, _)| (k, s))
            .collect();
        assert_eq!(
            got,
            vec![
                (Float, "0f3F800000"),
                (Float, "0d3FF0000000000000"),
                (Float, "1.5e-3"),
                (Int, "0x1fU"),
                (Int, "0b101"),
                (Int, "017"),
                (Int, "42"),
                (Float, "1e5"),
                (Eof, "")
            ]
        );
    }

    #[test]
    fn hex_floats_take_exactly_their_digits() {
        use TokenKind::*;
        let got: Vec<_> = kinds("0f3F80000 0f3F8000000 0d0 0F3F800000U").into_iter().map(|(k, s, _)| (k, s)).collect();
        assert_eq!(
            got,
            vec![
                (Int, "0"),
                (Ident, "f3F80000"),
                (Float, "0f3F800000"),
                (Int, "0"),
                (Int, "0"),
                (Ident, "d0"),
                (Float, "0F3F800000"),
                (Ident, "U"),
                (Eof, "")
            ]
        );
    }

    #[test]
    fn line_markers_are_trivia() {
        use TokenKind::*;
        let got: Vec<_> = kinds("# 1 \"a.cu\" 1 3\n#line 7 \"b.cu\"\nret; # 2 \"c\"\n# 12\n#define X")
            .into_iter()
            .map(|(k, s, _)| (k, s))
            .collect();
        assert_eq!(
            got,
            vec![
                (Ident, "ret"),
                (Punct, ";"),
                (Unknown, "#"),
                (Int, "12"),
                (Unknown, "#"),
                (Ident, "define"),
                (Ident, "X"),
                (Eof, "")
            ]
        );
    }

    #[test]
    fn unterminated_block_comment_is_a_token_at_its_start() {
        let tokens = lex("ret; /* open\n\n", FileId(0));
        assert_eq!(tokens[2].kind, TokenKind::UnterminatedComment);
        assert_eq!(tokens[2].span.range(), 5..5);
        assert_eq!(tokens[3].kind, TokenKind::Eof);
    }

    #[test]
    fn forbidden_bytes() {
        let message = |src: &str| forbidden_byte(src).map(|d| d.message);
        assert_eq!(message("// caf\u{e9}\n/* \u{e9}\n */ ret;"), None);
        assert_eq!(message("ret;\n\"\u{e9}\""), Some("Unexpected non-ASCII character encountered on line 2".into()));
        assert_eq!(message("\n\n// \0"), Some("Unexpected EOF encountered on line 3".into()));
        assert_eq!(message("\u{e9}\n\0"), Some("Unexpected non-ASCII character encountered on line 1".into()));
    }

    #[test]
    fn unterminated_strings_are_unknown() {
        use TokenKind::*;
        let got: Vec<_> = kinds("\"open\n\"esc\\\"\n\"end\\").into_iter().map(|(k, s, _)| (k, s)).collect();
        assert_eq!(got, vec![(Unknown, "\"open"), (Unknown, "\"esc\\\""), (Unknown, "\"end\\"), (Eof, "")]);
    }

    #[test]
    fn comments_strings_and_junk() {
        use TokenKind::*;
        let got: Vec<_> = kinds("/* a\n*/ .file 1 \"x\\\"y\" ` é").into_iter().map(|(k, s, _)| (k, s)).collect();
        assert_eq!(
            got,
            vec![(Dot, ".file"), (Int, "1"), (Str, "\"x\\\"y\""), (Unknown, "`"), (Unknown, "é"), (Eof, "")]
        );
    }
}
