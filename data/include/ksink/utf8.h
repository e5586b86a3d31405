// Text from outside (a file's lines, a database's TEXT) made valid UTF-8 the way Java decodes bytes
// as UTF-8 with its decoder's REPLACE action — `new String(bytes, UTF_8)`, an InputStreamReader, a
// JDBC driver: each malformed sequence becomes one U+FFFD, so a source writes what Kafka Connect's
// would and every string it writes is valid in any format (JSON, Avro, a database's text). Pure
// functions: any thread.
#pragma once

#include <string>

namespace ksink {

// Replaces each malformed UTF-8 sequence of `text` with U+FFFD (EF BF BD), where Java's UTF-8
// decoder would, as many times as Java would: a lone continuation byte, a lead byte no sequence
// starts with (C0, C1, F5..FF), a sequence cut short by a byte that cannot continue it (one
// U+FFFD for the bytes that could), an overlong form, an encoded surrogate (ED A0..BF xx: one for
// the three bytes), a code point above U+10FFFF; a sequence cut short by the end of `text`, one.
// Returns whether anything was replaced; valid text is left as it is, without a copy.
bool replaceMalformedUtf8(std::string& text);

}  // namespace ksink
