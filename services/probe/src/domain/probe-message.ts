// The probe as the RPC carries it, checked again here with the gateway's own validator: the
// service accepts nothing the HTTP body could not have said.
import type { ProbeOptions } from '@media/proto/media/probe/v1/probe_pb.js';
import { defaultProbeSpec, validateProbeOptions, type ProbeSpec } from '@media/media';

/** Absent: format and streams with every entry (the documented default). */
export function probeFromMessage(msg: ProbeOptions | undefined): ProbeSpec {
  if (!msg) return defaultProbeSpec();
  // No prototype: a map key such as "__proto__" stays an ordinary (and refused) field.
  const raw: Record<string, unknown> = Object.create(null);
  for (const [name, list] of Object.entries(msg.sections)) raw[name] = [...(list?.entries ?? [])];
  if (msg.selectStreams !== undefined) raw.select_streams = msg.selectStreams;
  if (msg.readIntervals.length > 0) raw.read_intervals = [...msg.readIntervals];
  if (msg.countFrames) raw.count_frames = true;
  if (msg.countPackets) raw.count_packets = true;
  if (msg.analyzedurationSec !== undefined) raw.analyzeduration = msg.analyzedurationSec;
  if (msg.probesizeBytes !== undefined) raw.probesize = Number(msg.probesizeBytes);
  return validateProbeOptions(raw);
}
