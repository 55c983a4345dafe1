//! Why a code was refused, and where it came from.

use std::fmt;
use std::path::PathBuf;

use super::MAX_PIN_LEN;

/// Where a code was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file: one the caller names, or the systemd credential.
    File(PathBuf),
    /// An environment variable.
    Env(String),
    /// A prompt on the terminal.
    Prompt,
}

/// What is wrong with a code or its file.
#[derive(Debug)]
#[non_exhaustive]
pub enum Problem {
    /// The file could not be opened.
    Open(std::io::Error),
    /// The file could not be read.
    Read(std::io::Error),
    /// The file's first line is not UTF-8.
    NotUtf8(std::str::Utf8Error),
    /// The code is longer than [`MAX_PIN_LEN`] bytes.
    TooLong,
    /// The code is empty.
    Empty,
    /// The code holds a control character.
    ControlCharacter,
}

/// A code that could not be read, or that breaks the rules: nothing was tried with it.
#[derive(Debug)]
pub struct PinError {
    name: String,
    origin: Origin,
    problem: Problem,
}

impl PinError {
    pub(super) fn new(name: &str, origin: Origin, problem: Problem) -> Self {
        PinError {
            name: name.to_owned(),
            origin,
            problem,
        }
    }

    /// Where the code was found (or was to be read from).
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// What is wrong.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// What is wrong, without where: "the PIN is empty", "cannot open it: …", for a caller
    /// that names the place itself.
    pub fn reason(&self) -> String {
        let name = &self.name;
        match (&self.problem, &self.origin) {
            (Problem::Open(e), _) => format!("cannot open it: {e}"),
            (Problem::Read(e), _) => format!("cannot read it: {e}"),
            (Problem::NotUtf8(e), _) => format!("its first line is not UTF-8: {e}"),
            (Problem::TooLong, Origin::File(_)) => {
                format!("its first line is longer than {MAX_PIN_LEN} bytes")
            }
            (Problem::TooLong, _) => format!("the {name} is longer than {MAX_PIN_LEN} bytes"),
            (Problem::Empty, _) => format!("the {name} is empty"),
            (Problem::ControlCharacter, _) => format!("the {name} holds a control character"),
        }
    }

    /// Whether the file itself could not be read as a code (rather than the code it gave
    /// breaking a rule).
    fn is_about_the_file(&self) -> bool {
        matches!(self.origin, Origin::File(_))
            && matches!(
                self.problem,
                Problem::Open(_) | Problem::Read(_) | Problem::NotUtf8(_) | Problem::TooLong
            )
    }
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = match &self.origin {
            Origin::File(path) => format!("the {} file {}", self.name, path.display()),
            Origin::Env(var) => var.clone(),
            Origin::Prompt => "the prompt".to_owned(),
        };
        if self.is_about_the_file() {
            write!(f, "{from}: {}", self.reason())
        } else {
            write!(f, "{} ({from}): nothing was tried", self.reason())
        }
    }
}

impl std::error::Error for PinError {}
