/// How much of the quota is left after `used`.
pub fn remaining(quota: u32, used: u32) -> u32 {
    quota - used
}

/// Whether `more` still fits in what is left.
pub fn fits(quota: u32, used: u32, more: u32) -> bool {
    more <= remaining(quota, used)
}
