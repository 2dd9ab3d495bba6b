#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <openssl/evp.h>

#include <rmq/error.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/remoting/acl.hpp>

#include <rmq/detail/util/java_string.hpp>

namespace rmq::remoting {

RMQ_DECL std::string acl_signature(std::span<const std::byte> data, std::string_view secret_key) {
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

RMQ_DECL std::string acl_signature(std::string_view data, std::string_view secret_key) {
    return acl_signature(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(data.data()), data.size()), secret_key);
}

RMQ_DECL std::string acl_signing_content(const Command& cmd) {
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

RMQ_DECL void acl_sign(Command& cmd, const AclCredentials& credentials) {
    ExtFields& fields = cmd.fields();
    fields.set(acl_field::access_key, credentials.access_key);
    if (credentials.security_token) {
        fields.set(acl_field::security_token, *credentials.security_token);
    }
    fields.set(acl_field::signature, acl_signature(acl_signing_content(cmd), credentials.secret_key));
}

}  // namespace rmq::remoting
