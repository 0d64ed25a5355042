//! Byte offset → (line, column) for the text of one file.

/// Built once per file, and only when the file has a finding to place.
pub struct LineIndex {
    /// Offset of the first byte of every line.
    starts: Vec<usize>,
    /// The last place located: `(offset, line index, column)`. Findings come in order,
    /// so the next column is counted on from here, not from the line's start: on one
    /// line of megabytes with a match every few bytes, counting from the start each
    /// time is quadratic.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl LineIndex {
    pub fn new(text: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        LineIndex {
            starts,
            last: std::cell::Cell::new((0, 0, 1)),
        }
    }

    /// 1-based line and 1-based column counted in Unicode scalar values; bytes of
    /// invalid UTF-8 count one column each.
    pub fn locate(&self, text: &[u8], offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let (last_offset, last_line, last_column) = self.last.get();
        let (from, base) = match last_line == line && last_offset >= start && last_offset <= offset
        {
            true => (last_offset, last_column),
            false => (start, 1),
        };
        let column = text[from..offset]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count()
            + base;
        self.last.set((offset, line, column));
        (saturate(line), saturate(column))
    }

    /// Offset of the first byte of 1-based `line` (the end of the text past the last line).
    pub fn line_start(&self, line: u32, text_len: usize) -> usize {
        let i = (line as usize).saturating_sub(1);
        self.starts.get(i).copied().unwrap_or(text_len)
    }

    /// The byte range of the line holding `offset`, without its line break.
    pub fn line_span(&self, text: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let mut end = self.starts.get(line).map_or(text.len(), |&e| e - 1);
        if end > start && text.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end.max(start))
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "ab\nçé@x\n".as_bytes();
        let idx = LineIndex::new(text);
        assert_eq!(idx.locate(text, 0), (1, 1));
        assert_eq!(idx.locate(text, 3), (2, 1));
        // '@' is after two 2-byte characters.
        assert_eq!(idx.locate(text, 7), (2, 3));
        assert_eq!(idx.line_span(text, 7), (3, 9));
        // In any order: the cursor only ever counts on, never back.
        assert_eq!(idx.locate(text, 8), (2, 4));
        assert_eq!(idx.locate(text, 5), (2, 2));
        assert_eq!(idx.locate(text, 1), (1, 2));
        assert_eq!(idx.locate(text, 7), (2, 3));
    }
}
