//! The OTLP trace messages `pactum serve` decodes from
//! `application/x-protobuf` bodies (opentelemetry-proto
//! `collector/trace/v1`, `trace/v1`, `common/v1`; only the fields pactum
//! reads — prost skips the others), and their conversion to the OTLP JSON
//! form the span reader takes ([`to_json`]): ids as hex, 64-bit integers
//! as decimal strings, bytes as base64, as the OTLP JSON encoding says.

use base64::Engine;
use serde_json::{json, Map, Value};

/// `ExportTraceServiceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportTraceServiceRequest {
    /// `resource_spans = 1`.
    #[prost(message, repeated, tag = "1")]
    pub resource_spans: Vec<ResourceSpans>,
}

/// `ResourceSpans` (of the resource, only its dropped count is read).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceSpans {
    /// `resource = 1`.
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// `scope_spans = 2`.
    #[prost(message, repeated, tag = "2")]
    pub scope_spans: Vec<ScopeSpans>,
}

/// `Resource`: its dropped count only (a resource that lost attributes
/// makes its spans incomplete, as in OTLP JSON).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    /// `dropped_attributes_count = 2`.
    #[prost(uint32, tag = "2")]
    pub dropped_attributes_count: u32,
}

/// `ScopeSpans` (the scope itself is not read).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeSpans {
    /// `spans = 2`.
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

/// `Span`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Span {
    /// 16 bytes.
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    /// 8 bytes.
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
    /// 8 bytes, or empty for a root span.
    #[prost(bytes = "vec", tag = "4")]
    pub parent_span_id: Vec<u8>,
    /// The span name.
    #[prost(string, tag = "5")]
    pub name: String,
    /// The span kind (`SpanKind`: 2 server, 5 consumer: their parent is
    /// remote).
    #[prost(int32, tag = "6")]
    pub kind: i32,
    /// Nanoseconds since the Unix epoch.
    #[prost(fixed64, tag = "7")]
    pub start_time_unix_nano: u64,
    /// Nanoseconds; 0 when the span has not ended.
    #[prost(fixed64, tag = "8")]
    pub end_time_unix_nano: u64,
    /// Attributes.
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
    /// Attributes the SDK dropped (past its limit).
    #[prost(uint32, tag = "10")]
    pub dropped_attributes_count: u32,
    /// Span events.
    #[prost(message, repeated, tag = "11")]
    pub events: Vec<Event>,
    /// Events the SDK dropped.
    #[prost(uint32, tag = "12")]
    pub dropped_events_count: u32,
    /// The status.
    #[prost(message, optional, tag = "15")]
    pub status: Option<Status>,
    /// Trace flags; bits 8 and 9 say whether the parent is remote.
    #[prost(fixed32, tag = "16")]
    pub flags: u32,
}

/// `Span.Event`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Event {
    /// Nanoseconds.
    #[prost(fixed64, tag = "1")]
    pub time_unix_nano: u64,
    /// The event name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Attributes.
    #[prost(message, repeated, tag = "3")]
    pub attributes: Vec<KeyValue>,
    /// Attributes the SDK dropped.
    #[prost(uint32, tag = "4")]
    pub dropped_attributes_count: u32,
}

/// `Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Status {
    /// The message.
    #[prost(string, tag = "2")]
    pub message: String,
    /// 0 unset, 1 ok, 2 error.
    #[prost(int32, tag = "3")]
    pub code: i32,
}

/// `KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    /// The key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// The value.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `AnyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    /// Which value.
    #[prost(oneof = "any_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<any_value::Value>,
}

/// `AnyValue.value`.
pub mod any_value {
    /// One of the value kinds.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// `string_value = 1`.
        #[prost(string, tag = "1")]
        StringValue(String),
        /// `bool_value = 2`.
        #[prost(bool, tag = "2")]
        BoolValue(bool),
        /// `int_value = 3`.
        #[prost(int64, tag = "3")]
        IntValue(i64),
        /// `double_value = 4`.
        #[prost(double, tag = "4")]
        DoubleValue(f64),
        /// `array_value = 5`.
        #[prost(message, tag = "5")]
        ArrayValue(super::ArrayValue),
        /// `kvlist_value = 6`.
        #[prost(message, tag = "6")]
        KvlistValue(super::KeyValueList),
        /// `bytes_value = 7`.
        #[prost(bytes = "vec", tag = "7")]
        BytesValue(Vec<u8>),
    }
}

/// `ArrayValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayValue {
    /// The values.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

/// `KeyValueList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValueList {
    /// The entries.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<KeyValue>,
}

fn any(v: &AnyValue) -> Value {
    use any_value::Value as V;
    match &v.value {
        None => json!({}),
        Some(V::StringValue(s)) => json!({"stringValue": s}),
        Some(V::BoolValue(b)) => json!({"boolValue": b}),
        Some(V::IntValue(i)) => json!({"intValue": i.to_string()}),
        Some(V::DoubleValue(d)) => json!({"doubleValue": d}),
        Some(V::ArrayValue(a)) => {
            json!({"arrayValue": {"values": a.values.iter().map(any).collect::<Vec<_>>()}})
        }
        Some(V::KvlistValue(l)) => json!({"kvlistValue": {"values": kvs(&l.values)}}),
        Some(V::BytesValue(b)) => {
            json!({"bytesValue": base64::engine::general_purpose::STANDARD.encode(b)})
        }
    }
}

fn kvs(items: &[KeyValue]) -> Vec<Value> {
    items
        .iter()
        .map(|kv| json!({"key": kv.key, "value": kv.value.as_ref().map_or(json!({}), any)}))
        .collect()
}

fn span(s: &Span) -> Value {
    let mut m = Map::new();
    m.insert("traceId".into(), json!(hex::encode(&s.trace_id)));
    m.insert("spanId".into(), json!(hex::encode(&s.span_id)));
    if !s.parent_span_id.is_empty() {
        m.insert("parentSpanId".into(), json!(hex::encode(&s.parent_span_id)));
    }
    m.insert("name".into(), json!(s.name));
    // Whether a missing parent is a remote caller or a cut-off trace.
    if s.kind != 0 {
        m.insert("kind".into(), json!(s.kind));
    }
    if s.flags != 0 {
        m.insert("flags".into(), json!(s.flags));
    }
    m.insert(
        "startTimeUnixNano".into(),
        json!(s.start_time_unix_nano.to_string()),
    );
    if s.end_time_unix_nano > 0 {
        m.insert(
            "endTimeUnixNano".into(),
            json!(s.end_time_unix_nano.to_string()),
        );
    }
    m.insert("attributes".into(), Value::Array(kvs(&s.attributes)));
    // What the SDK dropped may have been the calls: carried over, so the
    // trace is read as incomplete.
    if s.dropped_attributes_count > 0 {
        m.insert(
            "droppedAttributesCount".into(),
            json!(s.dropped_attributes_count),
        );
    }
    if s.dropped_events_count > 0 {
        m.insert("droppedEventsCount".into(), json!(s.dropped_events_count));
    }
    let events: Vec<Value> = s
        .events
        .iter()
        .map(|e| {
            let mut ev = json!({
                "timeUnixNano": e.time_unix_nano.to_string(),
                "name": e.name,
                "attributes": kvs(&e.attributes),
            });
            if e.dropped_attributes_count > 0 {
                ev["droppedAttributesCount"] = json!(e.dropped_attributes_count);
            }
            ev
        })
        .collect();
    m.insert("events".into(), Value::Array(events));
    if let Some(st) = &s.status {
        let mut sm = Map::new();
        sm.insert("code".into(), json!(st.code));
        if !st.message.is_empty() {
            sm.insert("message".into(), json!(st.message));
        }
        m.insert("status".into(), Value::Object(sm));
    }
    Value::Object(m)
}

/// The OTLP JSON form of a decoded request.
pub fn to_json(req: &ExportTraceServiceRequest) -> Value {
    let rs: Vec<Value> = req
        .resource_spans
        .iter()
        .map(|r| {
            let ss: Vec<Value> = r
                .scope_spans
                .iter()
                .map(|s| json!({"spans": s.spans.iter().map(span).collect::<Vec<_>>()}))
                .collect();
            let mut out = json!({"scopeSpans": ss});
            if let Some(n) = r
                .resource
                .as_ref()
                .map(|res| res.dropped_attributes_count)
                .filter(|n| *n > 0)
            {
                out["resource"] = json!({"droppedAttributesCount": n});
            }
            out
        })
        .collect();
    json!({"resourceSpans": rs})
}

/// Decodes an `application/x-protobuf` body into its OTLP JSON form.
///
/// # Errors
/// The decoder's message, for a body that is not an
/// `ExportTraceServiceRequest`.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    use prost::Message;
    ExportTraceServiceRequest::decode(body)
        .map(|r| to_json(&r))
        .map_err(|e| format!("not an OTLP ExportTraceServiceRequest: {e}"))
}
