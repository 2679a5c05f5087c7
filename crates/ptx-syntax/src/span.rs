//! Source locations: files, byte spans and line/column lookup.

use std::fmt;
use std::hash::{Hash, Hasher};

/// Identifies one source file; the caller chooses the numbering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file.
///
/// Spans compare equal to each other regardless of their position (as
/// `syn`'s tokens do): AST equality is structural, so a round-tripped module
/// equals the original although its text moved. Use [`Span::range`] and
/// [`Span::file`] when positions themselves matter.
#[derive(Clone, Copy, Default)]
pub struct Span {
    /// File the range belongs to.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span covering `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: clamp(start), end: clamp(end) }
    }

    /// The file this span lies in.
    pub fn file(self) -> FileId {
        self.file
    }

    /// Byte range inside the file.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

fn clamp(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl Hash for Span {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}..{}", self.file.0, self.start, self.end)
    }
}

/// A 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line number, starting at 1.
    pub line: u32,
    /// Column number in characters, starting at 1.
    pub col: u32,
}

/// Start offsets of every line of a source text, for offset -> line lookups.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `source`.
    pub fn new(source: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// Zero-based line containing byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// 1-based line containing byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        clamp(self.line_of(offset) + 1)
    }

    /// Line and column of byte `offset` in `source` (the text this index was built from).
    pub fn line_col(&self, source: &str, offset: usize) -> LineCol {
        let line = self.line_of(offset);
        let start = self.starts[line];
        let end = offset.min(source.len()).max(start);
        let col = source.get(start..end).map_or(end - start, |s| s.chars().count());
        LineCol { line: clamp(line + 1), col: clamp(col + 1) }
    }

    /// The text of the line containing `offset`, without its line break.
    pub fn line_text<'s>(&self, source: &'s str, offset: usize) -> &'s str {
        let line = self.line_of(offset);
        let start = self.starts[line];
        let end = self.starts.get(line + 1).map_or(source.len(), |&next| next - 1);
        source.get(start..end.max(start)).unwrap_or("").trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let src = "ab\ncd\n\nxé y";
        let index = LineIndex::new(src);
        assert_eq!(index.line_col(src, 0), LineCol { line: 1, col: 1 });
        assert_eq!(index.line_col(src, 4), LineCol { line: 2, col: 2 });
        assert_eq!(index.line_col(src, 6), LineCol { line: 3, col: 1 });
        assert_eq!(index.line_col(src, 11), LineCol { line: 4, col: 4 });
        assert_eq!(index.line_text(src, 4), "cd");
        assert_eq!(index.line_text(src, 99), "xé y");
    }

    #[test]
    fn spans_compare_structurally() {
        assert_eq!(Span::new(FileId(0), 1, 2), Span::new(FileId(3), 7, 9));
        assert_eq!(Span::new(FileId(0), 1, 2).to(Span::new(FileId(0), 5, 6)).range(), 1..6);
    }
}
