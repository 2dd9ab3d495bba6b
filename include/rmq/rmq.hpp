#pragma once

/// @file rmq.hpp
/// The umbrella header: everything rmq offers. It is also the root of the generated single header.

#include <rmq/allocate/averagely.hpp>
#include <rmq/allocate/averagely_by_circle.hpp>
#include <rmq/allocate/by_config.hpp>
#include <rmq/allocate/by_machine_room.hpp>
#include <rmq/allocate/consistent_hash.hpp>
#include <rmq/allocate/machine_room_nearby.hpp>
#include <rmq/clock.hpp>
#include <rmq/concepts/allocate_policy.hpp>
#include <rmq/concepts/offset_store_policy.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/config.hpp>
#include <rmq/consume_context.hpp>
#include <rmq/consumer_config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/offset_store/memory.hpp>
#include <rmq/offset_store/remote.hpp>
#include <rmq/process_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>
#include <rmq/version.hpp>
