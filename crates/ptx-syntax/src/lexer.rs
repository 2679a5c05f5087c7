//! Turns PTX text into tokens. Never fails: stray characters become
//! [`TokenKind::Unknown`] tokens that the parser reports.

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
        let (pos, newline) = skip_trivia(bytes, start);
        self.pos = pos;
        let glued = self.glued && self.pos == start;
        let line_start = std::mem::take(&mut self.first) || newline;
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

/// Skips whitespace and comments from `pos`; returns where the next token
/// starts and whether a line break was skipped.
fn skip_trivia(bytes: &[u8], mut pos: usize) -> (usize, bool) {
    let mut newline = false;
    while let Some(&b) = bytes.get(pos) {
        match (b, bytes.get(pos + 1)) {
            (b'\n', _) => {
                newline = true;
                pos += 1;
            }
            (b' ' | b'\t' | b'\r' | 0x0b | 0x0c, _) => pos += 1,
            // The line break after a line comment is seen by the next round.
            (b'/', Some(b'/')) => pos = memchr(bytes, pos, b'\n'),
            (b'/', Some(b'*')) => {
                let end = bytes[pos + 2..].windows(2).position(|w| w == b"*/").map_or(bytes.len(), |i| pos + 2 + i + 2);
                newline |= bytes[pos..end].contains(&b'\n');
                pos = end;
            }
            _ => break,
        }
    }
    (pos, newline)
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
            b'f' | b'F' | b'd' | b'D' => {
                let end = hex_run(2);
                if end > 2 {
                    return (TokenKind::Float, pos + end);
                }
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
