//! A trace where no clause was graded is undetermined, whatever the severity floor.
