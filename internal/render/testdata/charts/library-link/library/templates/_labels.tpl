{{- define "library.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
{{- end -}}
