//! The scenario error: where (a JSON path, or the builder method) and what.
//!
//! Every error of loading or building is invalid input; what is valid but not modeled
//! surfaces when the scenario runs, as the warp fault `not_modeled` ([`tld4_emu::WarpFault`]).

use thiserror::Error;

/// Invalid input in a scenario, with the JSON path (or builder method) it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct ScenarioError {
    /// JSON path, e.g. `lanes[2].R21` (for the builder: the method, e.g. `reg`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ScenarioError {
    /// Invalid input at `path`.
    pub fn new(path: impl Into<String>, message: impl std::fmt::Display) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.to_string(),
        }
    }

    /// The same error at `path` (a JSON path in place of the builder method's name).
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
}

pub(crate) fn err(path: impl Into<String>, message: impl std::fmt::Display) -> ScenarioError {
    ScenarioError::new(path, message)
}
