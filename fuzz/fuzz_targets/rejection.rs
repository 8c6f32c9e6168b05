#![no_main]
// See mcp_pin::fuzzing::rejection for what is asserted.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_pin::fuzzing::rejection(data));
