#pragma once

/// @file remoting/bodies.hpp
/// JSON command bodies (RemotingSerializable), one header each under remoting/bodies/: written exactly as
/// fastjson writes them and read leniently (fastjson's unquoted integer map keys, unknown fields, missing
/// fields).

#include <rmq/remoting/bodies/batch_ack.hpp>
#include <rmq/remoting/bodies/consumer_list.hpp>
#include <rmq/remoting/bodies/heartbeat_data.hpp>
#include <rmq/remoting/bodies/lock_batch.hpp>
#include <rmq/remoting/bodies/reset_offset.hpp>
#include <rmq/remoting/bodies/topic_route_data.hpp>
