#![no_main]
// See mcp_pin::fuzzing::result for what is asserted.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_pin::fuzzing::result(data));
