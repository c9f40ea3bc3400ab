{{/* Names, labels and per-component facts shared by the templates. */}}

{{- define "media-service.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* "<release>-<chart>", or the release alone when it already holds the chart name. */}}
{{- define "media-service.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Resource name of one component; 55 characters leave room for the "-<component>" suffix. */}}
{{- define "media-service.componentName" -}}
{{- printf "%s-%s" (include "media-service.fullname" .root | trunc 55 | trimSuffix "-") .name -}}
{{- end -}}

{{- define "media-service.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "media-service.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: media-service
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector of one component (dict root, name): stable across upgrades, so no version in it. */}}
{{- define "media-service.selectorLabels" -}}
app.kubernetes.io/name: {{ include "media-service.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "media-service.componentLabels" -}}
{{ include "media-service.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "media-service.configMapName" -}}
{{- printf "%s-config" (include "media-service.fullname" .) -}}
{{- end -}}

{{- define "media-service.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secret" (include "media-service.fullname" .)) -}}
{{- end -}}

{{- define "media-service.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "media-service.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/*
The fixed facts of each process: its port (fixed: every pod has its own network namespace), the
variable that sets it, its entrypoint, whether it needs ffmpeg (and a work directory), whether it
reads the Secret beyond MONGODB_URL (storage: S3 keys, signing secret), and whether it reads
Auth's events over NATS (the console does not: it only calls the services).
*/}}
{{- define "media-service.components" -}}
gateway: {port: 8080, portName: http, portEnv: PORT, main: gateway/dist/main.js, ffmpeg: false, database: false, secret: false, bus: true}
auth: {port: 50051, portName: grpc, portEnv: AUTH_PORT, main: services/auth/dist/main.js, ffmpeg: false, database: true, secret: false, bus: true}
storage: {port: 50052, portName: grpc, portEnv: STORAGE_PORT, main: services/storage/dist/main.js, ffmpeg: false, database: true, secret: true, bus: true}
jobs: {port: 50053, portName: grpc, portEnv: JOBS_PORT, main: services/jobs/dist/main.js, ffmpeg: true, database: true, secret: false, bus: true}
probe: {port: 50054, portName: grpc, portEnv: PROBE_PORT, main: services/probe/dist/main.js, ffmpeg: true, database: true, secret: false, bus: true}
billing: {port: 50055, portName: grpc, portEnv: BILLING_PORT, main: services/billing/dist/main.js, ffmpeg: false, database: true, secret: false, bus: true}
console: {port: 8083, portName: http, portEnv: CONSOLE_PORT, main: console/dist/main.js, ffmpeg: false, database: false, secret: false, bus: false}
{{- end -}}

{{/*
The processes this release runs: every component above, in its order (read from the table's
lines, since a map parsed from YAML has no order), the web console unless console.enabled is false.
*/}}
{{- define "media-service.componentList" -}}
{{- $names := list -}}
{{- range $line := regexFindAll "(?m)^[a-z]+:" (include "media-service.components" .) -1 -}}
{{- $name := trimSuffix ":" $line -}}
{{- if or (ne $name "console") $.Values.console.enabled }}{{ $names = append $names $name }}{{ end -}}
{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/* Storage's listener of upload URLs (storage.resumableUploads). */}}
{{- define "media-service.storageHttpPort" -}}8081{{- end -}}

{{/* Auth's admin listener, which the console calls (the CLI inside an Auth pod uses its loopback). */}}
{{- define "media-service.authAdminPort" -}}50061{{- end -}}

{{/*
AUTH_ADMIN_TOKEN: secrets.authAdminToken, else the one this release's Secret already holds (kept
across upgrades), else a new random one. `helm template` cannot look the Secret up: GitOps
installs set secrets.authAdminToken or keep the token in secrets.existingSecret.
*/}}
{{- define "media-service.authAdminToken" -}}
{{- if .Values.secrets.authAdminToken -}}
{{- .Values.secrets.authAdminToken -}}
{{- else -}}
{{- $existing := (lookup "v1" "Secret" .Release.Namespace (include "media-service.secretName" .)).data | default dict -}}
{{- if hasKey $existing "AUTH_ADMIN_TOKEN" -}}
{{- index $existing "AUTH_ADMIN_TOKEN" | b64dec -}}
{{- else -}}
{{- randAlphaNum 48 -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The processes that call other services, each with its own INTERNAL_TOKEN (packages/platform/src/internal-access.ts). */}}
{{- define "media-service.internalCallers" -}}
["gateway", "console", "jobs", "probe", "storage"]
{{- end -}}

{{/*
Who connects to whose gRPC port (dict service -> callers), the union of the access table's rows
per service: the NetworkPolicies let only these pods in.
*/}}
{{- define "media-service.grpcCallers" -}}
auth: [gateway, jobs, storage]
storage: [gateway, console, jobs, probe]
jobs: [gateway, console, probe]
probe: [gateway]
billing: [gateway, console]
{{- end -}}

{{- define "media-service.internalSecretName" -}}
{{- .Values.internalCalls.existingSecret | default (printf "%s-internal" (include "media-service.fullname" .)) -}}
{{- end -}}

{{/* In-cluster URL of a service (dict root, name), e.g. http://rel-media-service-auth:50051. */}}
{{- define "media-service.serviceUrl" -}}
{{- $meta := index (include "media-service.components" .root | fromYaml) .name -}}
{{- printf "http://%s:%v" (include "media-service.componentName" .) $meta.port -}}
{{- end -}}

{{/* image reference (dict root, values, meta): the component's, else the global one; tag "sha256:..." pins a digest. */}}
{{- define "media-service.image" -}}
{{- $g := .root.Values.image -}}
{{- $repo := .values.image.repository | default (ternary $g.ffmpegRepository $g.repository .meta.ffmpeg) -}}
{{- $tag := .values.image.tag | default $g.tag | default .root.Chart.AppVersion | toString -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" $repo $tag -}}
{{- else -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}
{{- end -}}
