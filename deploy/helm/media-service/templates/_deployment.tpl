{{/*
One Deployment (dict root, name, meta, values). Every pod: non-root uid 10001, read-only root
filesystem with emptyDirs for /tmp (DATA_DIR scratch) and, for ffmpeg, /work (WORK_DIR), no
capabilities, RuntimeDefault seccomp, no API token, no service-link variables (a Service named
"auth" would otherwise inject AUTH_PORT=tcp://... and break the port setting).
*/}}
{{- define "media-service.deployment" -}}
{{- $root := .root -}}
{{- $v := .values -}}
{{- $meta := .meta -}}
{{- $podSecurity := mergeOverwrite (deepCopy $root.Values.podSecurityContext) $v.podSecurityContext -}}
{{- $security := mergeOverwrite (deepCopy $root.Values.securityContext) $v.securityContext -}}
{{- $hpa := false -}}
{{- if eq .name "jobs" }}{{ $hpa = $v.autoscaling.enabled }}{{ end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "media-service.componentName" . }}
  labels:
    {{- include "media-service.componentLabels" . | nindent 4 }}
spec:
  {{- if not $hpa }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "media-service.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "media-service.componentLabels" . | nindent 8 }}
      annotations:
        # Roll the pods when the shared settings change.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- if $root.Values.metrics.enabled }}
        prometheus.io/scrape: "true"
        prometheus.io/port: "9464"
        prometheus.io/path: /metrics
        {{- end }}
        {{- if not $root.Values.secrets.existingSecret }}
        checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
        {{- end }}
        {{- if not $root.Values.internalCalls.existingSecret }}
        # New internal tokens (the Secret deleted and made again) roll every pod at once.
        checksum/internal-calls: {{ include (print $root.Template.BasePath "/internal-secret.yaml") $root | sha256sum }}
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "media-service.serviceAccountName" $root }}
      automountServiceAccountToken: {{ $root.Values.serviceAccount.automountToken }}
      enableServiceLinks: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $podSecurity | nindent 8 }}
      {{- if hasKey $v "terminationGracePeriodSeconds" }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "media-service.image" . | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy | default $root.Values.image.pullPolicy }}
          # The image's entrypoint is node; the argument picks the process.
          args: [{{ $meta.main | quote }}]
          ports:
            - name: {{ $meta.portName }}
              containerPort: {{ $meta.port }}
              protocol: TCP
            {{- if $root.Values.metrics.enabled }}
            - name: metrics
              containerPort: 9464
              protocol: TCP
            {{- end }}
            {{- if eq .name "gateway" }}{{ if $v.docs.enabled }}
            - name: docs
              containerPort: 8082
              protocol: TCP
            {{- end }}{{ end }}
            {{- if and (eq .name "storage") $root.Values.storage.resumableUploads }}
            - name: http
              containerPort: {{ include "media-service.storageHttpPort" $root }}
              protocol: TCP
            {{- end }}
            {{- if and (eq .name "auth") $root.Values.console.enabled }}
            - name: admin
              containerPort: {{ include "media-service.authAdminPort" $root }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "media-service.configMapName" $root }}
            {{- if $meta.secret }}
            - secretRef:
                name: {{ include "media-service.secretName" $root }}
            {{- end }}
          env:
            - name: {{ $meta.portEnv }}
              value: {{ $meta.port | quote }}
            {{- if $root.Values.metrics.enabled }}
            - name: METRICS_PORT
              value: "9464"
            - name: METRICS_HOST
              value: {{ $root.Values.config.listenAddress | quote }}
            {{- end }}
            {{- with $root.Values.tracing }}{{ if .otlpEndpoint }}
            # Traces: each component is a service of its own in the trace (docs/operations/tracing.md).
            - name: OTEL_EXPORTER_OTLP_ENDPOINT
              value: {{ .otlpEndpoint | quote }}
            - name: OTEL_EXPORTER_OTLP_PROTOCOL
              value: {{ .protocol | quote }}
            - name: OTEL_SERVICE_NAME
              value: {{ printf "media-%s" $.name | quote }}
            - name: OTEL_TRACES_SAMPLER
              value: {{ .sampler | quote }}
            {{- if .samplerArg }}
            - name: OTEL_TRACES_SAMPLER_ARG
              value: {{ .samplerArg | quote }}
            {{- end }}
            {{- end }}{{ end }}
            {{- if $meta.database }}
            # Named explicitly, not optional: a Secret without it stops the pod instead of letting
            # the service fall back to an embedded per-pod database.
            - name: MONGODB_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "media-service.secretName" $root }}
                  key: MONGODB_URL
            {{- end }}
            {{- if $meta.bus }}
            # Every service, the gateway too, reads Auth's events over NATS; the URL may hold
            # credentials, so it comes from the Secret unless an existing Secret is used with nats.url.
            - name: NATS_URL
            {{- if and $root.Values.secrets.existingSecret $root.Values.nats.url }}
              value: {{ $root.Values.nats.url | quote }}
            {{- else }}
              valueFrom:
                secretKeyRef:
                  name: {{ include "media-service.secretName" $root }}
                  key: NATS_URL
            {{- end }}
            # Copies of each JetStream stream (and so of its consumers): every process creates or
            # updates the streams at its start, so all of them must give the same number.
            - name: NATS_STREAM_REPLICAS
              value: {{ $root.Values.nats.streamReplicas | quote }}
            {{- end }}
            {{- if has .name (include "media-service.internalCallers" $root | fromJsonArray) }}
            # This process's own credential, sent with every call it makes to a service.
            - name: INTERNAL_TOKEN
              valueFrom:
                secretKeyRef:
                  name: {{ include "media-service.internalSecretName" $root }}
                  key: {{ printf "INTERNAL_TOKEN_%s" (upper .name) }}
            {{- end }}
            {{- if eq $meta.portName "grpc" }}
            # The hashes of the callers' tokens: every call to this service must carry one of them.
            - name: INTERNAL_CALLERS
              valueFrom:
                secretKeyRef:
                  name: {{ include "media-service.internalSecretName" $root }}
                  key: INTERNAL_CALLERS
            {{- end }}
            {{- include (printf "media-service.env.%s" .name) . | nindent 12 }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if eq $meta.portName "grpc" }}
          # grpc.health.v1: the overall status ("") includes a database ping, so an outage makes
          # pods unready; liveness asks for "liveness", which only needs the process to answer,
          # so an outage never restarts a Jobs worker that is waiting it out with its jobs.
          startupProbe:
            grpc:
              port: {{ $meta.port }}
            periodSeconds: 2
            failureThreshold: 30
          readinessProbe:
            grpc:
              port: {{ $meta.port }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          livenessProbe:
            grpc:
              port: {{ $meta.port }}
              service: liveness
            periodSeconds: 20
            timeoutSeconds: 5
            failureThreshold: 6
          {{- else if $root.Values.metrics.enabled }}
          # The gateway's and the console's health is on the ops listener (the API's paths have
          # none): live while the process answers; the gateway is ready while it serves (/readyz names
          # its backends' health without waiting on it), the console while its backends answer.
          startupProbe:
            httpGet:
              path: /livez
              port: metrics
            periodSeconds: 2
            failureThreshold: 30
          readinessProbe:
            httpGet:
              path: /readyz
              port: metrics
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 3
          livenessProbe:
            httpGet:
              path: /livez
              port: metrics
            periodSeconds: 20
            timeoutSeconds: 5
            failureThreshold: 6
          {{- else }}
          # Without the ops listener the gateway has no unauthenticated health path (unknown paths
          # answer 404), so its probes (and the console's) check that the port accepts connections.
          startupProbe:
            tcpSocket:
              port: {{ $meta.portName }}
            periodSeconds: 2
            failureThreshold: 30
          readinessProbe:
            tcpSocket:
              port: {{ $meta.portName }}
            periodSeconds: 10
            failureThreshold: 3
          livenessProbe:
            tcpSocket:
              port: {{ $meta.portName }}
            periodSeconds: 20
            failureThreshold: 6
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $security | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $meta.ffmpeg }}
            - name: work
              mountPath: /work
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if $v.preStopSleepSec }}
          # Endpoints and Ingress controllers learn of a stopping pod a moment after it is told to
          # stop: keep serving meanwhile, so no new connection is refused (Ingress 502) mid-rollout.
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ $v.preStopSleepSec | quote }}]
          {{- end }}
      volumes:
        # Scratch only (state is in MongoDB / NATS / S3); bounded so a pod cannot fill the node.
        - name: tmp
          emptyDir:
            sizeLimit: 1Gi
        {{- if $meta.ffmpeg }}
        - name: work
          emptyDir:
            sizeLimit: {{ $v.workDir.sizeLimit }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/* Variables of one component beyond its port and the shared ConfigMap. */}}
{{- define "media-service.env.gateway" -}}
- name: HOST
  value: {{ .root.Values.config.listenAddress | quote }}
{{- if .values.docs.enabled }}
- name: DOCS_PORT
  value: "8082"
- name: DOCS_HOST
  value: {{ .root.Values.config.listenAddress | quote }}
{{- end }}
{{- end -}}

{{/*
The admin listener (any account's keys and sign-in): on the pod network for the web console's pods,
every call carrying AUTH_ADMIN_TOKEN; without the console, on the pod's loopback only. The admin
CLI, run with `kubectl exec` in this pod, reaches it on loopback with the pod's token.
*/}}
{{- define "media-service.env.auth" -}}
{{- $port := include "media-service.authAdminPort" .root -}}
- name: AUTH_ADMIN_HOST
  value: {{ ternary .root.Values.config.listenAddress "127.0.0.1" .root.Values.console.enabled | quote }}
- name: AUTH_ADMIN_PORT
  value: {{ $port | quote }}
- name: AUTH_ADMIN_URL
  value: {{ printf "http://127.0.0.1:%s" $port | quote }}
{{- if .root.Values.console.enabled }}
{{ include "media-service.env.authAdminToken" . }}
{{- end }}
{{- end -}}

{{- define "media-service.env.authAdminToken" -}}
- name: AUTH_ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "media-service.secretName" .root }}
      key: AUTH_ADMIN_TOKEN
{{- end -}}

{{/* The web console: Auth's admin listener through its Service, the others through the ConfigMap's URLs. */}}
{{- define "media-service.env.console" -}}
{{- $v := .values -}}
- name: CONSOLE_HOST
  value: {{ .root.Values.config.listenAddress | quote }}
- name: AUTH_ADMIN_URL
  value: {{ printf "http://%s:%s" (include "media-service.componentName" (dict "root" .root "name" "auth")) (include "media-service.authAdminPort" .root) | quote }}
{{ include "media-service.env.authAdminToken" . }}
- name: API_URL
  value: {{ $v.apiUrl | quote }}
{{- with $v.docsUrl }}
- name: DOCS_URL
  value: {{ . | quote }}
{{- end }}
{{- if .root.Values.storage.resumableUploads }}
# The Files page uploads (tus) to Storage's upload URLs.
- name: STORAGE_PUBLIC_URL
  value: {{ .root.Values.storage.publicUrl | quote }}
{{- end }}
{{- end -}}

{{/*
storage.resumableUploads: upload URLs are Storage's listener's (S3_UPLOADS=storage), signed with
BLOB_SIGNING_SECRET (from the Secret), which every replica must share.
*/}}
{{- define "media-service.env.storage" -}}
{{- $root := .root -}}
{{- if $root.Values.storage.resumableUploads }}
{{- if not $root.Values.storage.publicUrl }}
{{- fail "storage.resumableUploads needs storage.publicUrl: where clients reach Storage's listener (e.g. https://uploads.example.com)" }}
{{- end }}
{{- if not (or $root.Values.secrets.blobSigningSecret $root.Values.secrets.existingSecret) }}
{{- fail "storage.resumableUploads needs secrets.blobSigningSecret (or BLOB_SIGNING_SECRET in secrets.existingSecret): every Storage pod must accept the upload URLs the others sign" }}
{{- end }}
- name: S3_UPLOADS
  value: storage
- name: STORAGE_HTTP_PORT
  value: {{ include "media-service.storageHttpPort" $root | quote }}
- name: STORAGE_HTTP_HOST
  value: {{ $root.Values.config.listenAddress | quote }}
- name: PUBLIC_BASE_URL
  value: {{ $root.Values.storage.publicUrl | quote }}
# Uploads in progress hold parts in /tmp (an emptyDir of 1Gi) and memory: capped per pod.
- name: S3_UPLOADS_IN_FLIGHT
  value: {{ $root.Values.storage.uploadsInFlight | quote }}
- name: S3_UPLOADS_PER_ADDRESS
  value: {{ $root.Values.storage.uploadsPerAddress | quote }}
{{- end }}
{{- end -}}

{{- define "media-service.env.jobs" -}}
- name: WORKER_CONCURRENCY
  value: {{ .values.workerConcurrency | quote }}
- name: PARALLEL_ENCODE
  value: {{ .values.parallelEncode | quote }}
- name: PARALLEL_MIN_INPUT_SEC
  value: {{ .values.parallelMinInputSec | quote }}
- name: PARALLEL_PART_SEC
  value: {{ .values.parallelPartSec | quote }}
{{- if not (kindIs "invalid" .values.stageAhead) }}
- name: JOB_STAGE_AHEAD
  value: {{ .values.stageAhead | quote }}
{{- end }}
{{- if not (kindIs "invalid" .values.memoryLimitMb) }}
- name: JOB_MEMORY_LIMIT_MB
  value: {{ .values.memoryLimitMb | quote }}
{{- end }}
- name: JOB_STAGING_TIMEOUT_SEC
  value: {{ .values.stagingTimeoutSec | quote }}
- name: JOB_TIMEOUT_SEC
  value: {{ .values.jobTimeoutSec | quote }}
- name: WORK_DIR
  value: /work
{{- end -}}

{{- define "media-service.env.probe" -}}
- name: JOB_TIMEOUT_SEC
  value: {{ .values.jobTimeoutSec | quote }}
- name: WORK_DIR
  value: /work
{{- end -}}

{{- define "media-service.env.billing" -}}
{{- end -}}
