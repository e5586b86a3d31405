// Java's object serialization of a java.util.HashMap<byte[], byte[]> — the stream
// ObjectOutputStream.writeObject writes for one, what Kafka Connect's standalone worker keeps in
// its offsets file (FileOffsetBackingStore) — written and read, so Connect and ksink share the
// file.
//
// Written: the stream header, HashMap's class descriptor (its serialVersionUID, loadFactor and
// threshold fields), the fields (0.75, and the threshold of the smallest table holding the
// entries), HashMap.writeObject's block (table size, entry count), then each key and value as a
// byte[] (the first with byte[]'s class descriptor, the others referring to it) or null. Read:
// that, and the back-references Java may write for arrays it has written before. Anything else
// (another class, a truncated stream) is refused with the reason. Pure: any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ksink {

// Key → value bytes; a nullopt value is Java's null (Connect keeps a reset offset as one).
using JavaByteArrayMap = std::map<std::string, std::optional<std::string>>;

std::string writeJavaSerializedMap(const JavaByteArrayMap& entries);
// Throws std::runtime_error saying what is wrong with `stream`.
JavaByteArrayMap readJavaSerializedMap(std::string_view stream);

}  // namespace ksink
