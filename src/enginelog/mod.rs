//! Engine-log parsing (UCI, CECP) and rule-13c coverage.
