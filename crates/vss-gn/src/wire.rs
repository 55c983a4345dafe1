//! Reading fixed-size big-endian fields from a slice, every read bounds-checked.

use crate::GnError;

/// A cursor over bytes that names what it is reading when they run out.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// The next `N` bytes of `what`.
    pub(crate) fn take<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GnError> {
        let (head, rest) =
            self.bytes
                .split_first_chunk::<N>()
                .ok_or_else(|| GnError::Truncated {
                    what,
                    needed: N - self.bytes.len(),
                })?;
        self.bytes = rest;
        Ok(*head)
    }

    /// A big-endian `u16` of `what`.
    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, GnError> {
        self.take::<2>(what).map(u16::from_be_bytes)
    }

    /// A big-endian `u32` of `what`.
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, GnError> {
        self.take::<4>(what).map(u32::from_be_bytes)
    }

    /// A big-endian `i32` of `what`.
    pub(crate) fn i32(&mut self, what: &'static str) -> Result<i32, GnError> {
        self.take::<4>(what).map(i32::from_be_bytes)
    }

    /// A reserved 16-bit field, which must be zero.
    pub(crate) fn reserved16(&mut self, what: &'static str) -> Result<(), GnError> {
        match self.u16(what)? {
            0 => Ok(()),
            _ => Err(GnError::Reserved(what)),
        }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(self) -> &'a [u8] {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_reads_say_what_and_how_much() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16("a"), Ok(0x0102));
        assert_eq!(
            r.u32("b"),
            Err(GnError::Truncated {
                what: "b",
                needed: 3
            })
        );
        assert_eq!(r.rest(), &[3]);
    }

    #[test]
    fn reserved_fields_must_be_zero() {
        assert_eq!(Reader::new(&[0, 0]).reserved16("r"), Ok(()));
        assert_eq!(
            Reader::new(&[0, 1]).reserved16("r"),
            Err(GnError::Reserved("r"))
        );
    }
}
