//! Family `revision06` (to be written).

use crate::model::Vector;

pub fn generate(_out: &mut Vec<Vector>) {}
