import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import protobuf from 'protobufjs';

/**
 * A loopback OTLP/HTTP collector for tests: takes `/v1/traces` and `/v1/metrics` in both
 * encodings (JSON as is, protobuf decoded with protobufjs against the OTLP schema below) and
 * keeps what it got in one normalized form. `mode: 'silent'` reads requests and never answers.
 */

export type AttrValue = string | number | boolean | AttrValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttrValue>;
  events: Array<{ name: string; attributes: Record<string, AttrValue> }>;
  status: { code: number; message?: string };
  resource: Record<string, AttrValue>;
}

export interface ReceivedDataPoint {
  attributes: Record<string, AttrValue>;
  /** A sum's value, or a histogram's count. */
  value: number;
  sum?: number;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: 'sum' | 'histogram' | 'gauge' | 'other';
  points: ReceivedDataPoint[];
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received, for searching for what must never be sent. */
  raw: Buffer;
}

// The parts of opentelemetry-proto (common, resource, trace, metrics v1) a test reads.
const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
  ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Event events = 11; uint32 dropped_events_count = 12; Status status = 15; fixed32 flags = 16; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message NumberDataPoint { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; double as_double = 4; sfixed64 as_int = 6;
  repeated KeyValue attributes = 7; uint32 flags = 8; }
message HistogramDataPoint { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; fixed64 count = 4; double sum = 5;
  repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; repeated KeyValue attributes = 9; uint32 flags = 10;
  double min = 11; double max = 12; }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`;

const root = protobuf.parse(OTLP_PROTO, { keepCase: false }).root;
const TraceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('otlp.ExportMetricsServiceRequest');
// protobuf: bytes as base64 (ids become hex below), 64-bit numbers as strings.
const TO_OBJECT = { longs: String, bytes: String, defaults: false, arrays: true, oneofs: false } as const;

type Json = Record<string, unknown>;

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly metrics: ReceivedMetric[] = [];
  readonly requests: ReceivedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiting = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly mode: 'ok' | 'silent',
  ) {}

  static async start(mode: 'ok' | 'silent' = 'ok'): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server, mode);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void receiver.handle(req, res));
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every body received, as text (protobuf bodies hold their strings as UTF-8 too). */
  get rawText(): string {
    return this.requests.map((r) => r.raw.toString('utf8')).join('\n');
  }

  /** A metric's points summed by a filter on their attributes. */
  total(name: string, where: Record<string, AttrValue> = {}): number {
    return this.metrics
      .filter((m) => m.name === name)
      .flatMap((m) => m.points)
      .filter((p) => Object.entries(where).every(([k, v]) => p.attributes[k] === v))
      .reduce((sum, p) => sum + p.value, 0);
  }

  async close(): Promise<void> {
    for (const res of this.waiting) res.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const contentType = String(req.headers['content-type'] ?? '');
    const path = req.url ?? '';
    this.requests.push({ path, contentType, headers: req.headers, raw });
    if (this.mode === 'silent') {
      this.waiting.add(res);
      return;
    }
    try {
      const json = contentType.includes('json');
      if (path === '/v1/traces') this.addSpans(json ? (JSON.parse(raw.toString('utf8')) as Json) : decode(TraceRequest, raw), json);
      else if (path === '/v1/metrics') this.addMetrics(json ? (JSON.parse(raw.toString('utf8')) as Json) : decode(MetricsRequest, raw));
      else {
        res.writeHead(404).end();
        return;
      }
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      return;
    }
    if (contentType.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  }

  private addSpans(body: Json, json: boolean): void {
    for (const rs of list(body.resourceSpans)) {
      const resource = attributes(list((rs.resource as Json | undefined)?.attributes));
      for (const ss of list(rs.scopeSpans)) {
        for (const s of list(ss.spans)) {
          const status = (s.status ?? {}) as Json;
          this.spans.push({
            traceId: id(s.traceId, json),
            spanId: id(s.spanId, json),
            parentSpanId: id(s.parentSpanId, json),
            name: String(s.name),
            startMs: Number(s.startTimeUnixNano) / 1e6,
            endMs: Number(s.endTimeUnixNano) / 1e6,
            attributes: attributes(list(s.attributes)),
            events: list(s.events).map((e) => ({ name: String(e.name), attributes: attributes(list(e.attributes)) })),
            status: { code: Number(status.code ?? 0), message: status.message as string | undefined },
            resource,
          });
        }
      }
    }
  }

  private addMetrics(body: Json): void {
    for (const rm of list(body.resourceMetrics)) {
      for (const sm of list(rm.scopeMetrics)) {
        for (const m of list(sm.metrics)) {
          const kind = m.sum ? 'sum' : m.histogram ? 'histogram' : m.gauge ? 'gauge' : 'other';
          const data = (m.sum ?? m.histogram ?? m.gauge ?? {}) as Json;
          const points = list(data.dataPoints).map((p) => ({
            attributes: attributes(list(p.attributes)),
            value: kind === 'histogram' ? Number(p.count) : Number(p.asInt ?? p.asDouble ?? 0),
            sum: p.sum === undefined ? undefined : Number(p.sum),
          }));
          this.metrics.push({ name: String(m.name), unit: String(m.unit ?? ''), kind, points });
        }
      }
    }
  }
}

function decode(type: protobuf.Type, raw: Buffer): Json {
  return type.toObject(type.decode(raw), TO_OBJECT) as Json;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

/** OTLP/JSON ids are hex already; protobuf bytes came out as base64. */
function id(value: unknown, json: boolean): string {
  if (typeof value !== 'string' || value === '') return '';
  return json ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
}

function attributes(kvs: Json[]): Record<string, AttrValue> {
  const result: Record<string, AttrValue> = {};
  for (const kv of kvs) result[String(kv.key)] = anyValue(kv.value as Json | undefined);
  return result;
}

function anyValue(value: Json | undefined): AttrValue {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return String(value.stringValue);
  if (value.boolValue !== undefined) return Boolean(value.boolValue);
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.arrayValue !== undefined) return list((value.arrayValue as Json).values).map((v) => anyValue(v));
  return undefined;
}
