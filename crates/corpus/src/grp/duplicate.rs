//! Family `duplicate` (to be written).

use crate::model::Vector;

pub fn generate(_out: &mut Vec<Vector>) {}
