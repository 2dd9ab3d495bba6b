#pragma once

/// @file acl.hpp
/// ACL request signing (Java's AclClientRPCHook / AclSigner): HMAC-SHA1 over the sorted ext field values
/// and the body, Base64-encoded into ext field `Signature`. Same wire format for ACL 1.0 (4.9.x–5.3.2) and
/// 5.3+ authentication.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/evp.h>

#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::remoting {

/// Ext field names the hook adds.
namespace acl_field {
inline constexpr std::string_view access_key = "AccessKey";
inline constexpr std::string_view security_token = "SecurityToken";
inline constexpr std::string_view signature = "Signature";
}  // namespace acl_field

/// Java's SessionCredentials: what a client signs with.
struct AclCredentials {
    std::string access_key;
    std::string secret_key;
    /// STS token; added as ext field `SecurityToken` (and signed) when present.
    std::optional<std::string> security_token;
};

/// AclSigner.calSignature: Base64(HmacSHA1(key = UTF-8 secret, data)). Throws rmq::InvalidArgument for an
/// empty secret key (javax.crypto refuses it, so a Java peer could never have produced such a signature).
inline std::string acl_signature(std::span<const std::byte> data, std::string_view secret_key) {
    if (secret_key.empty()) {
        throw InvalidArgument("unable to calculate a request signature: the ACL secret key is empty");
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    std::size_t mac_len = 0;
    if (EVP_Q_mac(nullptr,
                  "HMAC",
                  nullptr,
                  "SHA1",
                  nullptr,
                  secret_key.data(),
                  secret_key.size(),
                  reinterpret_cast<const unsigned char*>(data.data()),
                  data.size(),
                  mac,
                  sizeof mac,
                  &mac_len) == nullptr) {
        throw IllegalState("unable to calculate a request signature: OpenSSL HMAC-SHA1 failed");
    }
    std::string out(4 * ((mac_len + 2) / 3) + 1, '\0');
    const int n =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), mac, static_cast<int>(mac_len));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

/// acl_signature() of UTF-8 text.
inline std::string acl_signature(std::string_view data, std::string_view secret_key) {
    return acl_signature(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(data.data()), data.size()), secret_key);
}

/// The bytes AclClientRPCHook signs: the values of every ext field except `Signature`, ordered by key with
/// Java's String.compareTo (uppercase before lowercase), concatenated without separators, then the body.
/// Null values are skipped (they never reach the wire, so the server cannot include them either).
inline std::string acl_signing_content(const Command& cmd) {
    std::vector<const ExtFields::Entry*> entries;
    if (cmd.ext_fields) {
        for (const auto& e : *cmd.ext_fields) {
            if (e.first != acl_field::signature && e.second) {
                entries.push_back(&e);
            }
        }
    }
    std::sort(entries.begin(), entries.end(), [](const ExtFields::Entry* a, const ExtFields::Entry* b) {
        return rmq::detail::java_string_compare(a->first, b->first) < 0;
    });
    std::string content;
    for (const auto* e : entries) {
        content.append(*e->second);
    }
    content.append(cmd.body);
    return content;
}

/// AclClientRPCHook.doBeforeRequest: adds `AccessKey` (and `SecurityToken`), then `Signature`. Call it last,
/// after every ext field and the body are final: the server recomputes the signature from what it receives.
inline void acl_sign(Command& cmd, const AclCredentials& credentials) {
    ExtFields& fields = cmd.fields();
    fields.set(acl_field::access_key, credentials.access_key);
    if (credentials.security_token) {
        fields.set(acl_field::security_token, *credentials.security_token);
    }
    fields.set(acl_field::signature, acl_signature(acl_signing_content(cmd), credentials.secret_key));
}

}  // namespace rmq::remoting
