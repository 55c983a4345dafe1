//! The process's peak resident memory, as Linux reports it in `/proc/self/status`.

/// `VmHWM` (the resident set's high-water mark) in kB, if the system reports it.
pub fn peak_rss_kb() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

fn parse_vm_hwm(status: &str) -> Option<u32> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().strip_suffix("kB")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_high_water_mark_is_read_from_the_status_file() {
        assert_eq!(parse_vm_hwm("Name:\tx\nVmHWM:\t    5120 kB\n"), Some(5120));
        assert_eq!(parse_vm_hwm("VmRSS:\t1 kB\n"), None);
        assert_eq!(parse_vm_hwm("VmHWM:\tlots kB\n"), None);
        assert!(peak_rss_kb().is_some_and(|kb| kb > 0));
    }
}
