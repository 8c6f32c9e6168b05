#![no_main]
// See mcp_pin::fuzzing::mask for what is asserted.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_pin::fuzzing::mask(data));
