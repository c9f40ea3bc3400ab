{{/* One Ingress (dict root, name, ingress) to a component's Service port "http". */}}
{{- define "media-service.ingress" -}}
{{- $ctx := dict "root" .root "name" .name -}}
{{- $ing := .ingress -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "media-service.componentName" $ctx }}
  labels:
    {{- include "media-service.componentLabels" $ctx | nindent 4 }}
  {{- with $ing.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $ing.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with $ing.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- range $ing.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
          {{- range .paths }}
          - path: {{ .path }}
            pathType: {{ .pathType }}
            backend:
              service:
                name: {{ include "media-service.componentName" $ctx }}
                port:
                  name: http
          {{- end }}
    {{- end }}
{{- end -}}
